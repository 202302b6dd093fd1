package gitsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// noteDoc is the note of one commit on NotesRef.
type noteDoc struct {
	Statuses []Status `json:"statuses"`
	// Since holds when each context's status was set, by context.
	Since map[string]time.Time `json:"since,omitempty"`
}

// note is a commit's note as found: its statuses and its path in the notes
// tree ("" for none).
type note struct {
	doc  noteDoc
	path string
}

// SetStatus records st on commit in the commit's note on NotesRef, in a new
// notes commit on top of the current one; a status the commit already has
// writes nothing. The description is cut to MaxStatusDescription
// characters.
func (f *GitForge) SetStatus(ctx context.Context, commit string, st Status) error {
	fail := func(err error) error {
		return fmt.Errorf("gitsource: set status %q on %s: %w", st.Context, commit, err)
	}
	commit, err := checkCommitHex(commit)
	if err != nil {
		return fail(err)
	}
	if st, err = checkStatus(st); err != nil {
		return fail(err)
	}
	err = f.write(ctx, func(ctx context.Context) error {
		if err := f.refresh(ctx, extraFetchSpecs[0]); err != nil {
			return err
		}
		parent, n, err := f.readNote(ctx, commit)
		if err != nil {
			return err
		}
		statuses, changed := upsertStatus(n.doc.Statuses, st)
		if !changed {
			return nil
		}
		since := map[string]time.Time{}
		for _, s := range statuses {
			if t, ok := n.doc.Since[s.Context]; ok {
				since[s.Context] = t
			}
		}
		since[st.Context] = time.Now().UTC().Truncate(time.Second)
		data, err := encodeNote(noteDoc{Statuses: statuses, Since: since})
		if err != nil {
			return err
		}
		files := map[string][]byte{commit: data}
		if n.path != "" && n.path != commit {
			files[n.path] = nil // written flat from now on
		}
		_, err = f.repo.Commit(ctx, CommitRequest{
			Parent: parent, Ref: NotesRef, Files: files, Author: f.Author,
			Message: fmt.Sprintf("olmops: %s is %s on %s\n", st.Context, st.State, commit),
		})
		if err != nil || !f.repo.HasRemote() {
			return err
		}
		return f.repo.PushRef(ctx, NotesRef, false)
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// Statuses returns the statuses in commit's note, sorted by context.
func (f *GitForge) Statuses(ctx context.Context, commit string) ([]Status, error) {
	doc, err := f.statuses(ctx, commit)
	return doc.Statuses, err
}

// DatedStatuses returns the statuses in commit's note, sorted by context,
// each with the time it was set; zero for a status noted before olmops
// recorded times.
func (f *GitForge) DatedStatuses(ctx context.Context, commit string) ([]DatedStatus, error) {
	doc, err := f.statuses(ctx, commit)
	if err != nil {
		return nil, err
	}
	out := make([]DatedStatus, len(doc.Statuses))
	for i, s := range doc.Statuses {
		out[i] = DatedStatus{Status: s, Since: doc.Since[s.Context]}
	}
	return out, nil
}

func (f *GitForge) statuses(ctx context.Context, commit string) (noteDoc, error) {
	commit, err := checkCommitHex(commit)
	if err != nil {
		return noteDoc{}, fmt.Errorf("gitsource: statuses of %s: %w", commit, err)
	}
	if err := f.refresh(ctx, extraFetchSpecs[0]); err != nil {
		return noteDoc{}, err
	}
	_, n, err := f.readNote(ctx, commit)
	if err != nil {
		return noteDoc{}, fmt.Errorf("gitsource: statuses of %s: %w", commit, err)
	}
	slices.SortStableFunc(n.doc.Statuses, func(a, b Status) int { return strings.Compare(a.Context, b.Context) })
	return n.doc, nil
}

// readNote reads commit's note at the notes head as last fetched, which it
// returns too (zero when there are no notes yet).
func (f *GitForge) readNote(ctx context.Context, commit string) (plumbing.Hash, note, error) {
	head, err := f.repo.RemoteRef(ctx, NotesRef)
	if errors.Is(err, ErrNotFound) {
		return plumbing.ZeroHash, note{}, nil
	}
	if err != nil {
		return plumbing.ZeroHash, note{}, err
	}
	r := f.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.r.CommitObject(head)
	if err != nil {
		return head, note{}, fmt.Errorf("%s at %s: not a commit: %w", NotesRef, head, ErrNotFound)
	}
	tree, err := c.Tree()
	if err != nil {
		return head, note{}, fmt.Errorf("%s at %s: %w", NotesRef, head, err)
	}
	blob, path, err := findNote(r.r.Storer, tree, commit, "")
	if blob == nil || err != nil {
		return head, note{}, err
	}
	n := note{path: path}
	if err := decodeNote(blob, &n.doc); err != nil {
		return head, note{}, fmt.Errorf("note %s in %s at %s: %w", path, NotesRef, head, err)
	}
	return head, n, nil
}

// findNote looks for the note named rest below t: flat, or split into
// two-digit fan-out folders as git writes many notes ("ab/cdef…").
func findNote(s storer.EncodedObjectStorer, t *object.Tree, rest, prefix string) (*object.Blob, string, error) {
	for _, e := range t.Entries {
		switch {
		case e.Name == rest && (e.Mode == filemode.Regular || e.Mode == filemode.Executable):
			b, err := object.GetBlob(s, e.Hash)
			return b, prefix + e.Name, err
		case e.Mode == filemode.Dir && len(e.Name) == 2 && len(rest) > 2 && strings.HasPrefix(rest, e.Name):
			sub, err := object.GetTree(s, e.Hash)
			if err != nil {
				return nil, "", err
			}
			if b, path, err := findNote(s, sub, rest[2:], prefix+e.Name+"/"); b != nil || err != nil {
				return b, path, err
			}
		}
	}
	return nil, "", nil
}

func decodeNote(b *object.Blob, doc *noteDoc) error {
	rd, err := b.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, maxRecordFile))
	if err != nil {
		return err
	}
	*doc, err = parseNote(data)
	return err
}

func parseNote(data []byte) (noteDoc, error) {
	var doc noteDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return noteDoc{}, fmt.Errorf(`want JSON {"statuses":[…]}: %w`, err)
	}
	return doc, nil
}

func encodeNote(doc noteDoc) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // descriptions such as "0.9.2 -> 0.9.4" stay readable
	enc.SetIndent("", "  ")
	err := enc.Encode(doc)
	return buf.Bytes(), err
}

// upsertStatus sets st in statuses, sorted by context, and tells whether
// that changed anything.
func upsertStatus(statuses []Status, st Status) ([]Status, bool) {
	out := make([]Status, 0, len(statuses)+1)
	changed := true
	for _, s := range statuses {
		if s.Context == st.Context {
			changed = s != st
			continue
		}
		out = append(out, s)
	}
	out = append(out, st)
	slices.SortStableFunc(out, func(a, b Status) int { return strings.Compare(a.Context, b.Context) })
	return out, changed
}

func checkCommitHex(commit string) (string, error) {
	commit = strings.ToLower(commit)
	if len(commit) != 40 || strings.Trim(commit, "0123456789abcdef") != "" {
		return commit, fmt.Errorf("commit %q: want a full hex hash", commit)
	}
	return commit, nil
}

// checkStatus validates st and cuts its description as GitHub would.
func checkStatus(st Status) (Status, error) {
	switch st.State {
	case StatusPending, StatusSuccess, StatusFailure, StatusError:
	default:
		return st, fmt.Errorf("state %q: want pending, success, failure or error", st.State)
	}
	if st.Context == "" || !utf8.ValidString(st.Context) || strings.ContainsAny(st.Context, "\r\n") {
		return st, fmt.Errorf("context %q: want one non-empty line", st.Context)
	}
	// Invalid UTF-8 would come back from JSON changed, and every set would
	// then look like a change.
	st.Description = strings.ToValidUTF8(st.Description, "\uFFFD")
	st.TargetURL = strings.ToValidUTF8(st.TargetURL, "\uFFFD")
	if utf8.RuneCountInString(st.Description) > MaxStatusDescription {
		st.Description = string([]rune(st.Description)[:MaxStatusDescription])
	}
	return st, nil
}
