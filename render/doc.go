// Package render turns a registry+v1 operator bundle into the plain
// Kubernetes manifests OLM would create to install it, so that olmops can
// apply them without OLM in the cluster.
//
// A Bundle comes from a catalog's olm.bundle.object properties
// (FromCatalog) or from a bundle directory (FromDir). Render then does what
// OLM's catalog operator, OLM operator and OperatorGroup controller do on
// install: it checks the CSV's install modes against the target
// namespaces, renders the bundle's manifests into the install namespace,
// one Deployment per install-strategy deployment (with the CSV's and the
// OperatorGroup's pod annotations, the Subscription config and
// OPERATOR_CONDITION_NAME), ServiceAccounts, RBAC for permissions and
// clusterPermissions (cluster-wide for AllNamespaces, copied into every
// target namespace otherwise), OLM's aggregated ClusterRoles for each owned
// API (<crd>-<version>-admin, -edit, -view, -crdview), the OperatorCondition
// with its RBAC, the Services and webhook configurations of
// webhookdefinitions, and the APIServices of apiservicedefinitions.owned
// (<version>.<group>, with OLM's priorities and the auth-delegator and
// auth-reader bindings of their server's account). A deployment serving
// either mounts the Secret <service>-cert where OLM mounts it. RBAC names
// carry the package, not the version, so that an upgrade's diff shows rule
// changes rather than renames.
//
// What OLM does at run time is not rendered: the CSV and OperatorGroup
// themselves, owner references and OLM's labels, the OperatorGroup's own
// <og>-admin, -edit and -view ClusterRoles, the cluster proxy variables
// OLM injects on OpenShift, and the serving certificates and caBundles,
// which the controller issues and injects in the cluster (package
// reconciler/certs) so that no private key is in Git. Webhooks select their target namespaces by the
// kubernetes.io/metadata.name label, where OLM uses a label of its own.
// The cluster needs the OperatorCondition CRD (operators.coreos.com/v2).
//
// Overlay applies a cluster's kustomize overlay to rendered objects, in
// memory and confined to the overlay's folder. Files and ReadFiles write
// and read rendered objects as one deterministic YAML file per object.
//
// The package is pure: no network, no clock, and no disk except reading
// through an fs.FS the caller gives. Errors about files carry path:line.
// Every list of objects this package returns is sorted by Less.
package render
