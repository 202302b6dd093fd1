// Package property holds catalog properties: the raw Property as it appears
// on an object, and the typed forms of the types olmops acts on
// (olm.package, olm.gvk, olm.package.required, olm.gvk.required,
// olm.constraint, olm.maxOpenShiftVersion, olm.deprecated, olm.kubeversion,
// olm.bundle.object, olm.csv.metadata). Unknown types are kept raw.
//
// Values stay in the bytes they were written in (JSON or a YAML span) until a
// caller asks for them, so the megabytes of CSV metadata and bundle objects a
// real catalog carries cost nothing unless they are used.
package property
