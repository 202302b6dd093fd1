package certs

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

// Secret data keys: the serving pair under the kubernetes.io/tls keys,
// the CA under OLM's key, and the CA it replaced while clients may still
// meet certificates it signed.
const (
	CertKey       = "tls.crt"
	KeyKey        = "tls.key"
	CAKey         = "olmCAKey"
	PreviousCAKey = "olmops-previous-ca.crt"
)

// ErrRefused is wrapped when olmops will not issue a certificate: its
// Secret exists and olmops did not create it, or a plan carries it. A
// retry changes nothing until someone deletes the Secret or fixes the
// plan.
var ErrRefused = errors.New("serving certificate refused")

// Issuer keeps the serving certificates of the plans applied to one
// cluster. Its zero Now and Validity take time.Now and DefaultValidity.
type Issuer struct {
	// Reader reads the live Secrets; a cache of objects labelled
	// render.ManagedByLabel will do.
	Reader client.Reader
	// Direct reads a Secret Reader does not have, to tell a missing
	// Secret from one olmops did not label; nil means Reader.
	Direct client.Reader
	// Now is the time certificates are checked and issued at.
	Now func() time.Time
	// Validity is how long a new certificate and its CA live.
	Validity time.Duration
}

// Prepare returns objs ready to apply in namespace (the namespace of
// objects that have none): when a Service among them needs a serving
// certificate, copies of objs with its CA injected and its Secret added,
// current or rotated; otherwise objs itself. objs are not modified.
func (i *Issuer) Prepare(ctx context.Context, namespace string, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	ts, err := targets(namespace, objs, render.PackageLabel)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return objs, nil
	}
	now := time.Now()
	if i.Now != nil {
		now = i.Now()
	}
	out := make([]*unstructured.Unstructured, len(objs), len(objs)+len(ts))
	for k, o := range objs {
		out[k] = o.DeepCopy()
	}
	var all []issued
	for _, t := range ts {
		p, prev, err := i.pair(ctx, t, now)
		if err != nil {
			return nil, err
		}
		bundle := p.CA
		if prev != nil {
			bundle = append(append([]byte{}, p.CA...), prev...)
		}
		all = append(all, issued{target: t, bundle: bundle, hash: CAHash(p.CA)})
		out = append(out, secretObject(t, p, prev))
	}
	if _, err := inject(namespace, out, all); err != nil {
		return nil, fmt.Errorf("inject caBundle: %w", err)
	}
	return out, nil
}

// pair is t's certificate at now: the live one while it is good, else a
// new one; prev is the replaced CA while it is valid.
func (i *Issuer) pair(ctx context.Context, t target, now time.Time) (p Pair, prev []byte, err error) {
	hosts := Hosts(t.service, t.namespace)
	live, err := i.live(ctx, t, false)
	if err == nil && live != nil && i.Direct != nil && Check(pairOf(live), now, hosts) != "" {
		// A cache may lag behind the last rotation: rotate only what
		// the API server holds.
		live, err = i.live(ctx, t, true)
	}
	if err != nil {
		return Pair{}, nil, err
	}
	why := "no Secret " + t.secret()
	if live != nil {
		p = pairOf(live)
		if why = Check(p, now, hosts); why == "" {
			if validAt(live[PreviousCAKey], now) {
				prev = live[PreviousCAKey]
			}
			return p, prev, nil
		}
		if validAt(p.CA, now) {
			prev = p.CA
		}
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("issuing serving certificate", "service", t.namespace+"/"+t.service, "reason", why)
	p, err = Issue(now, cmp.Or(i.Validity, DefaultValidity), hosts)
	if err != nil {
		return Pair{}, nil, fmt.Errorf("serving certificate of Service %s/%s: %w", t.namespace, t.service, err)
	}
	return p, prev, nil
}

func pairOf(data map[string][]byte) Pair {
	return Pair{CA: data[CAKey], Cert: data[CertKey], Key: data[KeyKey]}
}

// live reads t's Secret with Reader, or with Direct when told to or when
// Reader does not find it, and returns its data; nil when it does not
// exist.
func (i *Issuer) live(ctx context.Context, t target, direct bool) (map[string][]byte, error) {
	r := i.Reader
	if direct && i.Direct != nil {
		r = i.Direct
	}
	key := client.ObjectKey{Namespace: t.namespace, Name: t.secret()}
	s := &unstructured.Unstructured{}
	s.SetAPIVersion("v1")
	s.SetKind("Secret")
	err := r.Get(ctx, key, s)
	if apierrors.IsNotFound(err) && i.Direct != nil && !direct {
		err = i.Direct.Get(ctx, key, s)
	}
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read Secret %s/%s: %w", key.Namespace, key.Name, err)
	}
	if s.GetLabels()[render.ManagedByLabel] != render.ManagedBy {
		return nil, fmt.Errorf("%w: the Secret %s/%s for the serving certificate of Service %s exists without label %s=%s, so olmops did not create it; delete it to let olmops issue the certificate",
			ErrRefused, key.Namespace, key.Name, t.service, render.ManagedByLabel, render.ManagedBy)
	}
	raw, _, _ := unstructured.NestedStringMap(s.Object, "data")
	data := make(map[string][]byte, len(raw))
	for k, v := range raw {
		// A value that is not base64 makes a pair Check refuses.
		data[k], _ = base64.StdEncoding.DecodeString(v)
	}
	return data, nil
}

// secretObject is the manifest of t's Secret. Built from the live data it
// is byte for byte the manifest applied before, so an unchanged
// certificate is not sent again.
func secretObject(t target, p Pair, prev []byte) *unstructured.Unstructured {
	data := map[string]any{
		CertKey: base64.StdEncoding.EncodeToString(p.Cert),
		KeyKey:  base64.StdEncoding.EncodeToString(p.Key),
		CAKey:   base64.StdEncoding.EncodeToString(p.CA),
	}
	if prev != nil {
		data[PreviousCAKey] = base64.StdEncoding.EncodeToString(prev)
	}
	labels := map[string]any{render.ManagedByLabel: render.ManagedBy}
	if t.pkg != "" {
		labels[render.PackageLabel] = t.pkg
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata": map[string]any{
			"name": t.secret(), "namespace": t.namespace, "labels": labels,
			"annotations": map[string]any{CAHashAnnotation: CAHash(p.CA)},
		},
		"type": "kubernetes.io/tls",
		"data": data,
	}}
}
