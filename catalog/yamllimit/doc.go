// Package yamllimit bounds what a YAML file may cost before anything
// decodes it: its size in bytes, and how many nodes its aliases add when
// expanded. A few hundred bytes of nested aliases ("billion laughs") parse
// into a small node graph but expand to gigabytes in any consumer that
// copies aliased nodes (kustomize, a decode into Go values, a JSON
// conversion), so every reader of untrusted YAML in olmops checks here
// first: catalogs, subscriptions, olmops.yaml, cluster.yaml and overlays.
//
// Errors name the file and line (path:line:) and the limit crossed. Files
// that do not parse are not this package's business: the caller's decoder
// reports them.
//
// It lives under catalog, beside catalog/semver and catalog/property,
// because catalog imports nothing of this module outside itself and every
// other reader of YAML already imports those leaves.
package yamllimit
