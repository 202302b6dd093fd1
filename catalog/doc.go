// Package catalog is olmops' in-memory model of an OLM file-based catalog:
// packages, channels and bundles that point to each other, with the indexes
// the resolver needs (bundles by name, providers by GVK, channel heads,
// replaces chains) and validation with opm parity.
//
// The model is pure: Load reads through an fs.FS (a directory or a git
// tree) and everything else takes values and returns values. A catalog is
// built leniently, the way OLM resolves against it: problems are collected,
// never fatal, and Validate reports them all at once, each with path:line.
package catalog
