// Package graph is the upgrade graph of an operator package as people read
// it: one subgraph per channel, a node per bundle, an edge per replaces,
// skips or skipRange, drawn as Mermaid (for GitHub pull requests and
// comments) or Graphviz DOT.
//
// The package is pure: Build reads a catalog.Package and every other
// function takes and returns values. The same input always gives the same
// bytes, so drawings can be compared and committed as golden files.
//
// Beyond the whole graph, Around cuts out the neighbourhood of an upgrade
// path for a pull-request body and Mark highlights the path; Diff compares
// two versions of a package's graph for the review bot and draws or tabulates
// the change. Those drawings keep to MaxNodes nodes, with a "… N more" note
// in each channel for the nodes left out; every Mermaid drawing is cut by
// Fit to Mermaid's own limits on edges and text.
package graph
