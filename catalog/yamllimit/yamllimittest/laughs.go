// Package yamllimittest holds the alias bomb the readers' tests feed to
// every YAML reader that yamllimit guards.
package yamllimittest

import (
	"fmt"
	"strings"
)

// Laughs is a few hundred bytes of YAML whose aliases expand to 9^8
// nodes, as a mapping under key (indented by two spaces), so that it can
// stand as a field of any document.
func Laughs(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  a: &a [l,l,l,l,l,l,l,l,l]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "  %c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	return b.String()
}
