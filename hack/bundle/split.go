package main

import "strings"

// splitImage cuts "host/repo:tag" or "host/repo@sha256:…" into its parts;
// a colon before the last slash belongs to the host's port.
func splitImage(ref string) (name, tag, digest string) {
	if n, d, ok := strings.Cut(ref, "@"); ok {
		return n, "", d
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i], ref[i+1:], ""
	}
	return ref, "", ""
}
