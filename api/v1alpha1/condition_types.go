package v1alpha1

// Condition types of a Repository, after the Kubernetes API conventions
// and Flux's kstatus-compatible trio: exactly one of Ready=True,
// Reconciling=True or Stalled=True describes the object at rest.
const (
	// ReadyCondition is True when the cluster matches the branch: every
	// merged plan of the cluster applied and healthy. False otherwise,
	// with the reason of the first plan that is not.
	ReadyCondition = "Ready"
	// ReconcilingCondition is True while the controller works towards a
	// new commit or spec, or retries after a failure it expects to pass.
	ReconcilingCondition = "Reconciling"
	// StalledCondition is True when reconciling cannot succeed until the
	// spec, a Secret or the repository changes; the controller stops
	// retrying on its own.
	StalledCondition = "Stalled"
	// SuspendedCondition is True while spec.suspend is: the controller
	// neither fetches nor applies, and the other conditions are as it left
	// them. Absent otherwise.
	SuspendedCondition = "Suspended"
)

// ReconcileRequestAnnotation asks for a pass now: the controller reconciles
// when its value changes and records the value it handled in
// status.lastHandledReconcileAt. It is Flux's annotation, so `flux
// reconcile`-style tooling works unchanged; `olmops reconcile` sets it.
const ReconcileRequestAnnotation = "reconcile.fluxcd.io/requestedAt"

// Condition reasons. Each names what a person should look at.
const (
	// SucceededReason: every plan is applied and healthy (Ready=True).
	SucceededReason = "Succeeded"
	// ProgressingReason: a new commit or spec is being fetched and
	// applied (Reconciling=True).
	ProgressingReason = "Progressing"
	// ProgressingWithRetryReason: the last attempt failed with an error
	// expected to pass, and the controller retries with backoff
	// (Reconciling=True).
	ProgressingWithRetryReason = "ProgressingWithRetry"
	// FetchFailedReason: the repository could not be fetched (network,
	// credentials, missing branch) (Ready=False).
	FetchFailedReason = "FetchFailed"
	// InvalidPlanReason: a merged plan or olmops.yaml does not load or
	// names a cluster that is not there; nothing changes until a new
	// commit (Ready=False, Stalled=True).
	InvalidPlanReason = "InvalidPlan"
	// VerificationFailedReason: spec.verify is set and the head commit is
	// unsigned, signed by a key the Secret does not hold, or its signature
	// does not verify; or the Secret holds no usable key. Nothing is
	// applied until a verified commit or a new spec (Ready=False,
	// Stalled=True).
	VerificationFailedReason = "VerificationFailed"
	// EscalationDeniedReason: olmops.yaml's escalation policy (at the head
	// or at the last applied commit) is Deny, and a plan of an Automatic
	// subscription at the head grants more than what was applied; nothing
	// of the head is applied until a new commit (Ready=False,
	// Stalled=True).
	EscalationDeniedReason = "EscalationDenied"
	// ApplyFailedReason: the API server refused an object of a plan (the
	// message carries its reason) (Ready=False).
	ApplyFailedReason = "ApplyFailed"
	// PruneFailedReason: an object that left the plans could not be
	// deleted (Ready=False).
	PruneFailedReason = "PruneFailed"
	// HealthCheckFailedReason: a hop's objects did not become healthy
	// within spec.healthTimeout (Ready=False).
	HealthCheckFailedReason = "HealthCheckFailed"
	// UpgradeHeldReason: an operator's OperatorCondition says
	// Upgradeable=False, so its upgrade waits while the rest is applied;
	// it resumes by itself when the condition clears (Ready=False, not
	// Stalled: the cluster does not match the branch yet, by design).
	UpgradeHeldReason = "UpgradeHeld"
	// SuspendedReason: spec.suspend is true (Suspended=True).
	SuspendedReason = "Suspended"
	// DependencyHeldReason: a plan was not applied because it requires a
	// package or API that neither the cluster serves nor another plan of
	// its namespace provides, or because the plan providing it is not
	// installed and healthy; it is applied once that changes (Ready=False,
	// not Stalled).
	DependencyHeldReason = "DependencyHeld"
	// MissingPermissionsReason: a ClusterExtension's plan was not applied
	// because its service account does not exist or may not get, create
	// or patch some of the plan's objects (the message lists what it
	// lacks), as OLM v1's preflight holds an install; nothing of the hop
	// was written, and it is applied once the account is granted what it
	// lacks (Ready=False, not Stalled).
	MissingPermissionsReason = "MissingPermissions"
	// FetchTooLargeReason: fetching the repository would read more than
	// olmops serve --max-fetch-size; nothing was fetched or applied, and
	// only a smaller repository or a larger cap fixes it (Ready=False,
	// Stalled=True).
	FetchTooLargeReason = "FetchTooLarge"
)

// Keys of the Secret that spec.secretRef names, by kind of credentials.
const (
	// SecretKeyToken holds an HTTPS token (GitHub: a personal access or
	// installation token); also the forge token's key in the Secret that
	// spec.forge.tokenSecretRef names.
	SecretKeyToken = "token"
	// SecretKeyUsername and SecretKeyPassword hold HTTPS basic
	// credentials.
	SecretKeyUsername = "username"
	// SecretKeyPassword: see SecretKeyUsername.
	SecretKeyPassword = "password"
	// SecretKeyIdentity holds an SSH private key (PEM or OpenSSH format).
	SecretKeyIdentity = "identity"
	// SecretKeyKnownHosts holds the known_hosts lines the SSH server's
	// key must match; required with identity.
	SecretKeyKnownHosts = "known_hosts"
)

// VerifyKeySuffix ends the keys of spec.verify's Secret that hold armored
// OpenPGP public keys, as in Flux; keys ending in neither this nor
// VerifySSHKeySuffix are ignored.
const VerifyKeySuffix = ".asc"

// VerifySSHKeySuffix ends the keys of spec.verify's Secret that hold SSH
// public keys in authorized_keys (or git's allowed_signers) form, as in
// Flux.
const VerifySSHKeySuffix = ".sshpub"
