package apply

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
)

// HashAnnotation holds the hash of the manifest an object was last applied
// from; an object whose annotation matches its manifest is not sent again
// unless someone else changed it.
const HashAnnotation = "olmops.io/applied-hash"

// digestLen is the length of hashes and digests in hex: 128 bits tell
// apart every manifest a cluster will ever see.
const digestLen = 32

// prepare returns the object to send for a manifest: a copy labelled as
// managed by olmops and annotated with the hash of its content, so that
// prune can tell olmops' objects and a no-op apply can skip them.
func prepare(manifest *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	obj := manifest.DeepCopy()
	labels := obj.GetLabels()
	if labels[render.ManagedByLabel] != render.ManagedBy {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[render.ManagedByLabel] = render.ManagedBy
		obj.SetLabels(labels)
	}
	annotations := obj.GetAnnotations()
	delete(annotations, HashAnnotation)
	obj.SetAnnotations(annotations)
	// encoding/json sorts map keys, so equal manifests give equal bytes.
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entryOf(obj), err)
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[HashAnnotation] = hashBytes(data)
	obj.SetAnnotations(annotations)
	return obj, nil
}

func hashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:digestLen]
}

// liveDigest fingerprints who wrote what in a live object: its UID and its
// field managers' field sets, leaving out timestamps and status writers.
// Any write to the object's spec or metadata by anyone changes a manager's
// field set (an update takes ownership of the fields it sets), so a changed
// digest means the object may have drifted.
func liveDigest(live *unstructured.Unstructured) string {
	entries := slices.DeleteFunc(live.GetManagedFields(), func(m metav1.ManagedFieldsEntry) bool {
		return m.Subresource != ""
	})
	slices.SortFunc(entries, func(a, b metav1.ManagedFieldsEntry) int {
		return cmp.Or(cmp.Compare(a.Manager, b.Manager), cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.APIVersion, b.APIVersion))
	})
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", live.GetUID())
	for _, m := range entries {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", m.Manager, m.Operation, m.APIVersion)
		if m.FieldsV1 != nil {
			h.Write(m.FieldsV1.Raw)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:digestLen]
}

// unchanged reports whether live is what olmops left when it applied obj
// and recorded prev: same manifest hash and same digest.
func unchanged(obj, live *unstructured.Unstructured, prev Entry) bool {
	return prev.Digest != "" &&
		live.GetAnnotations()[HashAnnotation] == obj.GetAnnotations()[HashAnnotation] &&
		live.GetDeletionTimestamp() == nil &&
		liveDigest(live) == prev.Digest
}
