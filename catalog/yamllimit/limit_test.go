package yamllimit

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// laughs is the classic alias bomb: nine levels of nine aliases each, a
// few hundred bytes that expand to 9^9 (387 million) scalars.
func laughs() string {
	var b strings.Builder
	b.WriteString("a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	return b.String()
}

// aliases writes an anchor of a 100-node sequence and n aliases to it:
// each alias adds 99 nodes once expanded.
func aliases(n int) string {
	items := make([]string, 99)
	for i := range items {
		items[i] = "x"
	}
	return "anchor: &x [" + strings.Join(items, ",") + "]\nuses: [" + strings.TrimSuffix(strings.Repeat("*x,", n), ",") + "]\n"
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		lim     Limits
		wantErr string // "" when accepted
	}{
		{name: "no aliases", data: "a: 1\nb: [x, y]\n"},
		{name: "a star that is no alias", data: "rule: '*.*.*'\n"},
		{name: "aliases at the limit", data: aliases(10), lim: Limits{MaxAliasNodes: 990}},
		{name: "aliases over the limit", data: aliases(11), lim: Limits{MaxAliasNodes: 990},
			wantErr: "f.yaml:2: YAML aliases expand the document by more than 990 nodes (the limit); the alias *x here alone expands to 100"},
		{name: "billion laughs", data: laughs(), wantErr: "f.yaml:9: YAML aliases expand the document by more than 100000 nodes"},
		{name: "bomb in a later document", data: "a: 1\n---\n" + laughs(), wantErr: "f.yaml:11:"},
		{name: "size at the limit", data: "a: 12345\n", lim: Limits{MaxBytes: 9}},
		{name: "size over the limit", data: "a: 123456\n", lim: Limits{MaxBytes: 9}, wantErr: "f.yaml: file is 10 bytes, more than the 9 allowed"},
		{name: "syntax error is the decoder's", data: "a: *nowhere\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check("f.yaml", []byte(tt.data), tt.lim)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatal("accepted")
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
			}
			var le *Error
			if err != nil && !errors.As(err, &le) {
				t.Errorf("error %T is not an *Error", err)
			}
		})
	}
}

// TestCheckBombIsCheap measures the check itself: the bomb is refused
// after work proportional to its few hundred bytes, not to its expansion.
func TestCheckBombIsCheap(t *testing.T) {
	bomb := []byte(laughs())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := Check("bomb.yaml", bomb, Limits{}); err == nil {
		t.Fatal("the bomb was accepted")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("checking a %d-byte bomb allocated %d bytes, want < 1 MiB", len(bomb), got)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(laughs()), int64(0))
	f.Add([]byte(aliases(3)), int64(200))
	f.Add([]byte("a: &a {b: *a}\n"), int64(1))
	f.Add([]byte("<<: *x\n"), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, maxNodes int64) {
		err := Check("f.yaml", data, Limits{MaxAliasNodes: maxNodes})
		var le *Error
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %T is not an *Error: %v", err, err)
		}
	})
}
