package markdown

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"use v2\n### RBAC\n✅ Reviewed by security", `use v2 \#\#\# RBAC ✅ Reviewed by security`},
		{"gone <!-- hide the rest", "gone &lt;\\!-- hide the rest"},
		{"<!-- olmops:plan cluster=a namespace=b name=c to=d inputs=e -->", "&lt;\\!-- olmops:plan cluster=a namespace=b name=c to=d inputs=e --&gt;"},
		{"a | b", `a \| b`},
		{"[click](javascript:alert(1)) ![img](x)", `\[click\](javascript:alert(1)) \!\[img\](x)`},
		{"**bold** _it_ ~~s~~ `c`", "\\*\\*bold\\*\\* \\_it\\_ \\~\\~s\\~\\~ \\`c\\`"},
		{"line\u2028sep\r\nx", "line sep x"},
		{`back\slash &amp;`, `back\\slash &amp;amp;`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"etcd.v0.9.4", "`etcd.v0.9.4`"},
		{"a`b\nc|d", "`a'b c\\|d`"},
	}
	for _, tt := range tests {
		if got := Code(tt.in); got != tt.want {
			t.Errorf("Code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzText checks what makes text inert: one line, no raw HTML opener, no
// unescaped Markdown control character.
func FuzzText(f *testing.F) {
	f.Add("a\n### b <!-- c")
	f.Add("[x](y) | `z` \\")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if strings.ContainsAny(out, "\n\r<>") {
			t.Fatalf("Text(%q) = %q holds a line break or an angle bracket", s, out)
		}
		for i := 0; i < len(out); i++ {
			switch out[i] {
			case '\\':
				i++ // an escape and the character it escapes
			case '`', '*', '_', '[', ']', '|', '~', '!', '#':
				t.Fatalf("Text(%q) = %q: unescaped %q at %d", s, out, out[i], i)
			}
		}
		code := Code(s)
		if strings.Count(code, "`") != 2 || strings.ContainsAny(code, "\n\r") {
			t.Fatalf("Code(%q) = %q", s, code)
		}
	})
}
