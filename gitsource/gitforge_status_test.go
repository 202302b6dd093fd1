package gitsource_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// cliNote is the note of commit on refs/notes/olmops of the server, as
// the git CLI shows it in a fresh clone.
func cliNote(t *testing.T, rm remote, commit string) []gitsource.Status {
	t.Helper()
	work := t.TempDir()
	gittest.Git(t, work, "clone", "--quiet", rm.dir, ".")
	gittest.Git(t, work, "fetch", "--quiet", "origin", gitsource.NotesRef+":"+gitsource.NotesRef)
	out := gittest.Git(t, work, "notes", "--ref=olmops", "show", commit)
	var doc struct {
		Statuses []gitsource.Status `json:"statuses"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("git notes show: %v\n%s", err, out)
	}
	return doc.Statuses
}

func TestGitForgeStatuses(t *testing.T) {
	rm := newRemote(t, baseFiles)
	commit := rm.head(t, "main").String()
	f := gitsource.NewGitForge(rm.open(t))
	ctx := t.Context()
	long := strings.Repeat("é", 200)
	sets := []gitsource.Status{
		{Context: "olmops/prod/ns/etcd", State: gitsource.StatusPending, Description: "applying"},
		{Context: "olmops/east/ns/etcd", State: gitsource.StatusSuccess, Description: "0.9.2 -> 0.9.4 <done>", TargetURL: "https://example.com/x"},
		{Context: "olmops/prod/ns/etcd", State: gitsource.StatusFailure, Description: long},
	}
	for _, st := range sets {
		if err := f.SetStatus(ctx, commit, st); err != nil {
			t.Fatalf("SetStatus(%+v): %v", st, err)
		}
	}
	want := []gitsource.Status{sets[1], sets[2]}
	want[1].Description = strings.Repeat("é", gitsource.MaxStatusDescription)

	got, err := gitsource.NewGitForge(rm.open(t)).Statuses(ctx, strings.ToUpper(commit))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Statuses from another clone = %+v, %v\nwant %+v", got, err, want)
	}
	if got := cliNote(t, rm, commit); !reflect.DeepEqual(got, want) {
		t.Errorf("git notes show = %+v\nwant %+v", got, want)
	}

	// Setting what the commit has writes nothing: the long description
	// compares as cut.
	before := rm.ref(t, gitsource.NotesRef)
	if err := f.SetStatus(ctx, commit, sets[2]); err != nil {
		t.Fatal(err)
	}
	if got := rm.ref(t, gitsource.NotesRef); got != before {
		t.Errorf("unchanged SetStatus wrote a notes commit: %s -> %s", before, got)
	}
	rm.rev(t, gitsource.NotesRef+"~2") // each change is a notes commit on top of the last

	other := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"a": []byte("a")}}).String()
	if got, err := f.Statuses(ctx, other); err != nil || len(got) != 0 {
		t.Errorf("Statuses of a commit without a note = %v, %v; want none", got, err)
	}

	bad := []struct {
		commit string
		st     gitsource.Status
		want   string
	}{
		{commit: commit[:12], st: sets[0], want: "full hex hash"},
		{commit: strings.Repeat("z", 40), st: sets[0], want: "full hex hash"},
		{commit: commit, st: gitsource.Status{Context: "c", State: "done"}, want: `state "done"`},
		{commit: commit, st: gitsource.Status{State: gitsource.StatusSuccess}, want: "context"},
		{commit: commit, st: gitsource.Status{Context: "a\nb", State: gitsource.StatusSuccess}, want: "context"},
	}
	for _, tt := range bad {
		if err := f.SetStatus(ctx, tt.commit, tt.st); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SetStatus(%s, %+v) = %v, want %q", tt.commit, tt.st, err, tt.want)
		}
	}
	if got := rm.ref(t, gitsource.NotesRef); got != before {
		t.Errorf("refused SetStatus wrote a notes commit")
	}
}

// TestGitForgeStatusConcurrent sets statuses on one commit from two
// clones at once, and from two goroutines on one of them: every status
// lands, the losers of each push race re-doing their note.
func TestGitForgeStatusConcurrent(t *testing.T) {
	rm := newRemote(t, baseFiles)
	commit := rm.head(t, "main").String()
	shared := rm.open(t)
	writers := map[string]gitsource.Forge{
		"a1": gitsource.NewGitForge(shared), "a2": gitsource.NewGitForge(shared), "b": gitsource.NewGitForge(rm.open(t)),
	}
	const each = 4
	var wg sync.WaitGroup
	errs := make(chan error, len(writers)*each)
	var want []gitsource.Status
	for name, f := range writers {
		for i := range each {
			want = append(want, gitsource.Status{Context: fmt.Sprintf("olmops/%s/%d", name, i), State: gitsource.StatusSuccess})
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				st := gitsource.Status{Context: fmt.Sprintf("olmops/%s/%d", name, i), State: gitsource.StatusSuccess}
				if err := f.SetStatus(t.Context(), commit, st); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("SetStatus: %v", err)
	}
	got, err := gitsource.NewGitForge(rm.open(t)).Statuses(t.Context(), commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Statuses = %d statuses %+v, want all %d", len(got), got, len(want))
	}
	if got := cliNote(t, rm, commit); len(got) != len(want) {
		t.Errorf("git notes show: %d statuses, want %d", len(got), len(want))
	}
}

// TestGitForgeNotesFromGit reads notes git wrote: flat, in a fan-out
// folder, and not JSON at all.
func TestGitForgeNotesFromGit(t *testing.T) {
	rm := newRemote(t, baseFiles)
	commit := rm.head(t, "main").String()
	repo := rm.open(t)
	f := gitsource.NewGitForge(repo)
	ctx := t.Context()
	success := gitsource.Status{Context: "ci", State: gitsource.StatusSuccess}

	gittest.Git(t, rm.dir, "notes", "--ref=olmops", "add", "-m", `{"statuses":[{"context":"ci","state":"success"}]}`, commit)
	if got, err := f.Statuses(ctx, commit); err != nil || !reflect.DeepEqual(got, []gitsource.Status{success}) {
		t.Errorf("Statuses of a note git added = %+v, %v", got, err)
	}

	// Rewrite the note as git does with many notes: ab/cdef….
	if err := repo.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	parent, err := repo.RemoteRef(ctx, gitsource.NotesRef)
	if err != nil {
		t.Fatal(err)
	}
	fanout := commit[:2] + "/" + commit[2:]
	if _, err := repo.Commit(ctx, gitsource.CommitRequest{
		Parent: parent, Ref: gitsource.NotesRef, Message: "fan out", Author: author,
		Files: map[string][]byte{commit: nil, fanout: []byte(`{"statuses":[{"context":"ci","state":"pending"}]}`)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := repo.PushRef(ctx, gitsource.NotesRef, false); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Statuses(ctx, commit); err != nil || len(got) != 1 || got[0].State != gitsource.StatusPending {
		t.Errorf("Statuses of a fanned-out note = %+v, %v", got, err)
	}
	if err := f.SetStatus(ctx, commit, success); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, rm.dir, "ls-tree", "-r", "--name-only", gitsource.NotesRef); got != commit+"\n" {
		t.Errorf("notes tree after SetStatus = %q, want the flat note only", got)
	}
	if got := cliNote(t, rm, commit); !reflect.DeepEqual(got, []gitsource.Status{success}) {
		t.Errorf("git notes show = %+v", got)
	}

	gittest.Git(t, rm.dir, "notes", "--ref=olmops", "add", "-f", "-m", "looks good to me", commit)
	before := rm.ref(t, gitsource.NotesRef)
	if _, err := f.Statuses(ctx, commit); err == nil || !strings.Contains(err.Error(), "note "+commit) {
		t.Errorf("Statuses of a text note = %v, want an error naming the note", err)
	}
	err = f.SetStatus(ctx, commit, success)
	if err == nil || errors.Is(err, gitsource.ErrNonFastForward) {
		t.Errorf("SetStatus over a text note = %v, want a decode error", err)
	}
	if got := rm.ref(t, gitsource.NotesRef); got != before {
		t.Error("SetStatus overwrote a note it could not read")
	}
}
