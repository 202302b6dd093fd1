package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// stderrFile is a file standing for stderr redirected: not a terminal.
func stderrFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// On a terminal the progress line is rewritten in place and cleared
// before a line that stays; off a terminal only the lines that stay are
// written.
func TestStatusLine(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		want string
	}{
		{true, "\r\033[Kpulling 1 …\r\033[Kpulling 2 …\r\033[Kdone\n\r\033[Kwaiting …\r\033[K"},
		{false, "done\n"},
	} {
		var b bytes.Buffer
		l := &statusLine{w: &b, tty: tc.tty}
		l.show("pulling %d", 1)
		l.show("pulling %d", 2)
		l.println("done")
		l.clear() // nothing shown: nothing to clear
		l.show("waiting")
		l.clear()
		if b.String() != tc.want {
			t.Errorf("tty %v: wrote %q, want %q", tc.tty, b.String(), tc.want)
		}
	}
}

type fakeImages struct{}

func (fakeImages) BundleImage(_ context.Context, image string) (string, fs.FS, error) {
	return image + "@sha256:0", fstest.MapFS{}, nil
}

// A plan's pulls are counted on a terminal, and pass through unchanged.
func TestPullProgress(t *testing.T) {
	var b bytes.Buffer
	p := &pullProgress{ImageSource: fakeImages{}, line: &statusLine{w: &b, tty: true}}
	for _, img := range []string{"quay.io/a:1", "quay.io/b:2"} {
		if pinned, _, err := p.BundleImage(t.Context(), img); err != nil || pinned != img+"@sha256:0" {
			t.Errorf("BundleImage(%s) = %s, %v", img, pinned, err)
		}
	}
	if want := "\r\033[Kpulling bundle 1: quay.io/a:1 …\r\033[Kpulling bundle 2: quay.io/b:2 …"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// progress writes nothing where no one watches: a file, a pipe.
func TestProgressQuietOffTerminal(t *testing.T) {
	f := stderrFile(t)
	progress(f, "pulling %s", "quay.io/x")()
	p := &pullProgress{ImageSource: fakeImages{}, line: newStatusLine(f)}
	if _, _, err := p.BundleImage(t.Context(), "quay.io/a:1"); err != nil {
		t.Fatal(err)
	}
	p.line.clear()
	if got := readAll(t, f); got != "" {
		t.Errorf("progress wrote %q to a file", got)
	}
	if strings.Contains(readAll(t, f), "\r") {
		t.Error("a carriage return in a file")
	}
}
