// Package certs gives the webhooks and aggregated API servers of a plan
// the serving certificates OLM would give them, in the cluster and never
// in Git.
//
// A Service of a hop needs a certificate when a Deployment of the same
// hop mounts the Secret named after it, <service>-cert, as render mounts
// it (OLM's names and paths). For each such Service, Prepare adds to the
// hop a Secret of type kubernetes.io/tls holding a serving certificate
// for the Service's DNS names (<svc>.<ns>, <svc>.<ns>.svc and
// <svc>.<ns>.svc.cluster.local) and the CA that signed it (key olmCAKey,
// as OLM), injects that CA as caBundle into the hop's webhook
// configurations, CRD conversion webhooks and APIServices that call the
// Service, and puts the CA's hash on the Deployments' pod templates
// (annotation olmcahash, as OLM), so that a new certificate restarts
// them.
//
// A certificate lives DefaultValidity (two years, as OLM) and is replaced
// once less than a fifth of its life remains (OLM waits until one day is
// left), or at once when it is missing, malformed, not yet valid, not for
// the Service's names, or not signed by its CA. A fresh CA signs each
// certificate and its private key is dropped, so no key that can sign
// survives issuance. After a rotation the previous CA stays in the
// caBundle until it expires, so that pods still serving the old
// certificate are trusted while the Deployment rolls out.
//
// A Secret of that name that olmops did not create (one without
// render.ManagedByLabel), or one a plan carries, is refused rather than
// replaced: private keys never come from Git, and olmops does not take
// over a certificate someone else manages.
//
// Issue, Check and Hosts are pure; Prepare reads the live Secrets.
package certs
