// Package markdown makes untrusted text inert where olmops writes it into
// GitHub-flavoured Markdown: pull request bodies, review comments and
// job summaries. Catalog text (deprecation messages, names, ranges) and
// subscription fields are written by people olmops does not trust; raw,
// a newline forges a section ("### RBAC ✅ Reviewed"), an unclosed "<!--"
// hides everything after it, and a forged "<!-- olmops:plan ... -->"
// marker could pass for olmops's own.
//
// Text and Code return a single line that renders as the characters given
// and nothing else, safe in a table cell, a list item or a heading.
//
// It sits under catalog/ because catalog/graph renders catalog text too and
// catalog imports nothing of this module outside itself; plan, review and
// render use the same two functions.
package markdown
