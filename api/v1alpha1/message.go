package v1alpha1

import "unicode/utf8"

// maxMessage is where a condition or Event message is cut: the API server
// cuts Events at 1 KiB anyway, and a condition that long says no more.
const maxMessage = 1024

// CutMessage keeps a condition or Event message within 1 KiB without
// splitting a character, for the Repository and the Planner alike.
func CutMessage(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	i := maxMessage - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
