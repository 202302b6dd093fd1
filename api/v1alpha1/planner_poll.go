package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RegistrySpec is how a Planner reaches catalog images.
//
// +kubebuilder:object:generate=true
type RegistrySpec struct {
	// secretRef names a Secret of type kubernetes.io/dockerconfigjson,
	// in the Planner's namespace, with the registries' credentials (key
	// .dockerconfigjson). Without it, images are pulled anonymously.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// mirrors are tried before an image's own registry, in order, as an
	// OpenShift ImageDigestMirrorSet lists them.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	Mirrors []ImageMirror `json:"mirrors,omitempty"`
}

// ImageMirror lists mirrors of one registry or repository.
//
// +kubebuilder:object:generate=true
type ImageMirror struct {
	// source is the registry or repository mirrored, such as
	// registry.redhat.io or quay.io/operatorhubio.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Source string `json:"source"`
	// mirrors serve the same content, tried in order.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=512
	Mirrors []string `json:"mirrors"`
	// neverContactSource, when true, fails rather than fall back to
	// source when every mirror failed.
	// +optional
	NeverContactSource bool `json:"neverContactSource,omitempty"`
}

// CatalogPoll is the last poll of one catalog's source image.
//
// +kubebuilder:object:generate=true
type CatalogPoll struct {
	// name of the catalog in olmops.yaml.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// image polled, as olmops.yaml names it.
	// +optional
	Image string `json:"image,omitempty"`
	// digest the image resolved to at the last poll that reached the
	// registry.
	// +optional
	Digest string `json:"digest,omitempty"`
	// importedDigest is the digest whose content was last proposed or
	// committed (or found already in Git). It differs from digest while
	// an import is pending or failing.
	// +optional
	ImportedDigest string `json:"importedDigest,omitempty"`
	// lastPollTime is when the image was last polled, successfully or not.
	// +optional
	LastPollTime *metav1.Time `json:"lastPollTime,omitempty"`
	// error says why the last poll or import failed; empty when it
	// succeeded. The catalog last imported stays as it is.
	// +optional
	Error string `json:"error,omitempty"`
	// proposal is the link of the import's open proposal, if any.
	// +optional
	Proposal string `json:"proposal,omitempty"`
	// consecutiveFailures counts the polls (or imports) of this image that
	// failed in a row: the retries back off from it, and a controller that
	// takes over (a restart, a new leader) continues the backoff rather
	// than polling a failing registry again at once.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ConsecutiveFailures int32 `json:"consecutiveFailures,omitempty"`
	// nextAttemptTime is when the failing image is polled again; absent
	// when the last poll succeeded.
	// +optional
	NextAttemptTime *metav1.Time `json:"nextAttemptTime,omitempty"`
}
