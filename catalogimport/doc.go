// Package catalogimport owns the import of a catalog image's file-based
// catalog into a desired-state repository: pull the image, keep the wanted
// packages, validate them, render the folder in a stable layout, summarise
// what changed since the previous import, and either replace the folder on
// disk at once or propose the change as one commit on a branch olmops owns,
// through the forge.
//
// Run is the one entry point; `olmops catalog import` and the planning
// controller share it. Nothing is written when the catalog is invalid
// (an *InvalidError).
package catalogimport
