// Package apply makes a cluster match one subscription's plan: it applies
// the plan's hops with server-side apply, waits for them to become healthy,
// prunes what left the plan, and says what happened in a Result the caller
// persists (the Inventory) and posts (Report).
//
// An Applier applies one Request at a time per subscription; it holds no
// state between calls, so one Applier serves every subscription and
// concurrent calls for different subscriptions are safe. What it needs
// from the previous call comes back in the Request: the installed bundle
// and the Inventory.
//
// For each hop, in order, Apply:
//   - holds the hop back, applying nothing, while an installed operator's
//     OperatorCondition (operators.coreos.com/v2, named after its CSV) says
//     Upgradeable=False and the hop would move it off its bundle; the
//     OperatorConditions are listed from the cluster (labelled with
//     Request.Package, or named after Installed, From or a hop), so that
//     a lost Result does not lift a hold;
//   - refuses the hop (ErrCRDUnsafe), before any of it is written, when a
//     CustomResourceDefinition it updates drops a version in the live
//     CRD's status.storedVersions, or when an existing custom resource of
//     a version that stays served does not validate against the new schema
//     (OLM classic's rule, with the API server's own schema validation and
//     structural defaulting from k8s.io/apiextensions-apiserver);
//   - checks the hop with a server-side dry run, so that an object the API
//     server refuses (invalid, denied by admission, of an unknown kind)
//     fails the hop before any of it is written;
//   - applies with field owner FieldOwner and forced ownership, in stages:
//     CustomResourceDefinitions (then waits until Established), Namespaces,
//     ServiceAccounts and RBAC, ConfigMaps, Secrets and Services, workloads,
//     then the rest (OperatorConditions, webhooks, custom resources);
//   - waits until the hop is healthy (Health: every object Current as
//     kstatus computes it, APIServices Available), for at most
//     HealthTimeout;
//   - prunes the objects of the Inventory that the hop no longer holds, in
//     reverse stage order with background propagation and a UID
//     precondition, if they are still labelled as managed by olmops (the
//     others leave the Inventory and stay). Namespaces are never deleted;
//     CustomResourceDefinitions only when Request.PruneCRDs says so, and
//     they stay in the Inventory until then.
//
// An object whose live copy still carries the hash of its manifest
// (annotation HashAnnotation) and whose field managers are as olmops left
// them (the Entry's Digest) is not sent again: a no-op apply costs one read
// per object, and none when Reader is a cache. An edit in the cluster
// changes the field managers, so the object is applied again and the edit
// is undone.
//
// Request.Progress, when set, hears each hop start (once its dry run passed), get held, fail, or
// become installed and healthy, as it happens, so that the controller can
// post events and "applying (hop n/m)" statuses while Apply waits; between
// a started hop's apply and its health, each health poll's verdict (what
// is not yet healthy, and why) too, for a terminal to show. An
// apply that changes nothing makes no call; the Result Apply returns is
// always the last word.
//
// ReadRequest reads a plan folder into a Request. It refuses a folder
// whose files do not match installplan.yaml's manifestsDigest
// (v1alpha1.VerifyManifests): a hand-edited plan fails before anything is
// applied, with an error naming installplan.yaml.
//
// Remove deletes every object of a subscription whose plan left the
// repository, by the rules of prune above, with the same code; what it
// could not or may not delete (CRDs without PruneCRDs) stays in the
// Inventory it returns.
//
// The install namespace is created when missing, labelled as managed by
// olmops, and never deleted.
package apply
