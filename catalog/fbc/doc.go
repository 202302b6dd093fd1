// Package fbc holds the file layer of an OLM file-based catalog: the objects
// exactly as they appear on disk (olm.package, olm.channel, olm.bundle,
// olm.deprecations and any other schema kept as an opaque blob), each
// remembering the file and line it came from.
//
// Decoding is pure: Decode turns the bytes of one file into objects. Load
// walks an fs.FS (a directory, or a git tree) honouring .indexignore files
// and refusing symlinks that leave the root. Large property values
// (olm.csv.metadata, olm.bundle.object) are kept as raw spans and decoded
// only when asked for.
package fbc
