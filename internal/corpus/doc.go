// Package corpus is where tests find the shared corpus: the real catalogs,
// scenarios and OLM documents kept in a shared/ folder beside the repository
// root (../shared from the folder holding go.mod), never inside it.
//
// A test that needs the corpus fails when it is missing, with one line naming
// the path expected: a run that silently skips half the catalog tests is not
// a pass. People who cloned without the corpus set OLMOPS_NO_SHARED=1, and
// those tests skip instead.
package corpus
