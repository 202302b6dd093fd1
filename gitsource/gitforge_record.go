package gitsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// recordFile is the one file of a proposal record's tree.
const recordFile = "proposal.json"

// maxRecordFile bounds what is read of a record's or a note's file, which
// anyone who can push may have written.
const maxRecordFile = 1 << 20

// record is a git-only proposal as its record ref holds it.
type record struct {
	head, base  string
	proposed    plumbing.Hash
	title, body string
	labels      []string // sorted, unique; nil for none
}

// recordMeta is proposal.json.
type recordMeta struct {
	Head   string   `json:"head"`
	Base   string   `json:"base"`
	Labels []string `json:"labels,omitempty"`
}

func newRecord(req ProposalRequest) (*record, error) {
	if err := checkHead(req.Head); err != nil {
		return nil, err
	}
	if err := plumbing.NewBranchReferenceName(req.Base).Validate(); err != nil || req.Base == "" {
		return nil, fmt.Errorf("invalid base branch name %q", req.Base)
	}
	if strings.TrimSpace(req.Title) == "" || strings.ContainsAny(req.Title, "\r\n") {
		return nil, fmt.Errorf("title %q: want one non-empty line", req.Title)
	}
	var labels []string
	if len(req.Labels) > 0 {
		labels = slices.Compact(slices.Sorted(slices.Values(req.Labels)))
	}
	return &record{head: req.Head, base: req.Base, title: req.Title, body: req.Body, labels: labels}, nil
}

// message is the record commit's message: the title, a blank line, the
// body.
func (rec *record) message() string {
	if rec.body == "" {
		return rec.title + "\n"
	}
	return rec.title + "\n\n" + rec.body
}

// splitMessage undoes message.
func splitMessage(msg string) (title, body string) {
	title, body, _ = strings.Cut(msg, "\n")
	return title, strings.TrimPrefix(body, "\n")
}

func (rec *record) encodeMeta() ([]byte, error) {
	data, err := json.MarshalIndent(recordMeta{Head: rec.head, Base: rec.base, Labels: rec.labels}, "", "  ")
	return append(data, '\n'), err
}

func (rec *record) equal(o *record) bool {
	return rec.head == o.head && rec.base == o.base && rec.proposed == o.proposed &&
		rec.title == o.title && rec.body == o.body && slices.Equal(rec.labels, o.labels)
}

// readRecord reads the record of head as the remote had it at the last
// fetch; nil when head was never proposed.
func (r *Repo) readRecord(ctx context.Context, head string) (*record, error) {
	name := ProposalRefPrefix + head
	h, err := r.RemoteRef(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := r.decodeRecord(h)
	if err != nil {
		return nil, fmt.Errorf("proposal record %s (commit %s): %w", name, h, err)
	}
	if rec.head != head {
		return nil, fmt.Errorf("proposal record %s (commit %s): %s names head %q", name, h, recordFile, rec.head)
	}
	return rec, nil
}

func (r *Repo) decodeRecord(h plumbing.Hash) (*record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.r.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("not a commit: %w", ErrNotFound)
	}
	if len(c.ParentHashes) != 1 {
		return nil, fmt.Errorf("has %d parents, want the proposed commit only", len(c.ParentHashes))
	}
	f, err := c.File(recordFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", recordFile, err)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", recordFile, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, maxRecordFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", recordFile, err)
	}
	var meta recordMeta
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", recordFile, err)
	}
	title, body := splitMessage(c.Message)
	return &record{
		head: meta.Head, base: meta.Base, proposed: c.ParentHashes[0],
		title: title, body: body,
		labels: slices.Compact(slices.Sorted(slices.Values(meta.Labels))),
	}, nil
}
