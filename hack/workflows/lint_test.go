package workflows

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/rhysd/actionlint"
)

func TestWorkflowsLint(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../.github/workflows/*.yml", "../../examples/.github/workflows/*.yml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("found %d workflows (%v), want the release and the example workflow", len(files), files)
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}
