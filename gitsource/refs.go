package gitsource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
)

// Where refs other than branches and tags live. The remote's refs/notes/olmops
// and refs/olmops/* are fetched into trackingPrefix, as its branches are into
// refs/remotes/origin: a local ref of the same name only stages a commit for
// PushRef, so a fetch never overwrites what is about to be pushed, and the
// tracking ref is the lease a forced PushRef checks.
const (
	trackingPrefix = "refs/remote-refs/" + RemoteName + "/"
	// NotesRef holds the notes of the git-only forge's commit statuses.
	NotesRef = "refs/notes/olmops"
	// OlmopsRefPrefix is olmops' own namespace of refs that are not
	// branches, such as the git-only forge's proposal records.
	OlmopsRefPrefix = "refs/olmops/"
)

// extraFetchSpecs bring the refs olmops writes besides branches. The notes
// spec is a glob because go-git fails a fetch on an exact refspec the remote
// lacks; it also matches refs/notes/olmops<suffix>, which costs nothing.
var extraFetchSpecs = []config.RefSpec{
	"+" + NotesRef + "*:" + trackingPrefix + "notes/olmops*",
	"+" + OlmopsRefPrefix + "*:" + trackingPrefix + "olmops/*",
}

// fetchSpecs are the remote's configured refspecs (git's default when it
// has none, as a bare clone does) followed by extraFetchSpecs.
func fetchSpecs(r *git.Repository) ([]config.RefSpec, error) {
	rem, err := r.Remote(RemoteName)
	if err != nil {
		return nil, err
	}
	specs := append([]config.RefSpec(nil), rem.Config().Fetch...)
	if len(specs) == 0 {
		specs = append(specs, config.RefSpec(fmt.Sprintf(config.DefaultFetchRefSpec, RemoteName)))
	}
	return append(specs, extraFetchSpecs...), nil
}

// fetchOnly fetches specs alone, pruning what they cover as Fetch does.
func (r *Repo) fetchOnly(ctx context.Context, specs ...config.RefSpec) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := fetch(ctx, r.r, r.auth, specs, r.maxFetch); err != nil {
		return fmt.Errorf("gitsource: fetch %s: %w", r.url, err)
	}
	return nil
}

// HasRemote tells whether r fetches from and pushes to an origin; without
// one, refs are only local and PushRef, DeleteRef and Fetch do not reach
// anywhere.
func (r *Repo) HasRemote() bool { return r.url != "" }

// trackingName is where Fetch keeps the remote's ref name.
func trackingName(name plumbing.ReferenceName) plumbing.ReferenceName {
	switch {
	case name.IsBranch():
		return plumbing.NewRemoteReferenceName(RemoteName, strings.TrimPrefix(name.String(), "refs/heads/"))
	case name.IsTag():
		return name
	}
	return plumbing.ReferenceName(trackingPrefix + strings.TrimPrefix(name.String(), "refs/"))
}

// owned tells the refs olmops may force or delete: its proposal branches,
// its own namespace and its notes; never a branch people work on.
func owned(name plumbing.ReferenceName) bool {
	s := name.String()
	return strings.HasPrefix(s, "refs/heads/"+ForcePushPrefix) || strings.HasPrefix(s, OlmopsRefPrefix) || s == NotesRef
}

// checkRefName accepts a full, valid name under refs/ that is not a
// remote-tracking ref, which only Fetch and PushRef write.
func checkRefName(name string) error {
	ref := plumbing.ReferenceName(name)
	switch {
	case !strings.HasPrefix(name, "refs/") || ref.Validate() != nil:
		return fmt.Errorf("invalid ref name %q: want a full name such as refs/heads/main", name)
	case ref.IsRemote() || strings.HasPrefix(name, trackingPrefix):
		return fmt.Errorf("ref %q is remote-tracking: Fetch writes it", name)
	}
	return nil
}

// RemoteRef is the object the remote's ref name (a full name such as
// refs/heads/main or refs/notes/olmops) pointed at when r last fetched or
// pushed it; on a repository without a remote, the local ref. Fetch brings
// branches, and only refs/notes/olmops and refs/olmops/* besides them. It
// fails with ErrNotFound when there is no such ref.
func (r *Repo) RemoteRef(ctx context.Context, name string) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := checkRefName(name); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: remote ref: %w", err)
	}
	ref := plumbing.ReferenceName(name)
	if r.url != "" {
		ref = trackingName(ref)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rf, err := r.r.Reference(ref, true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: remote ref %s: %w", name, ErrNotFound)
	}
	return rf.Hash(), nil
}

// PushRef sends the local ref name (a full name under refs/) to the same
// name on the remote. Unless force is set the remote ref must be absent or
// an ancestor of the local one. With force it may be anything, but only
// under a lease: it must still be where r last fetched it, or, when r has
// never seen it, an ancestor as without force. Losing either race fails
// with ErrNonFastForward, leaving the remote as it was; force outside
// olmops' own refs (branches under ForcePushPrefix, refs/olmops/*,
// refs/notes/olmops) fails with ErrForceRefused. Pushing what the remote has
// already succeeds.
func (r *Repo) PushRef(ctx context.Context, name string, force bool) error {
	fail := func(err error) error { return fmt.Errorf("gitsource: push %s: %w", name, err) }
	ref := plumbing.ReferenceName(name)
	switch err := checkRefName(name); {
	case err != nil:
		return fail(err)
	case force && !owned(ref):
		return fail(ErrForceRefused)
	case r.url == "":
		return fail(ErrNoRemote)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("pushing", "url", r.url, "ref", name, "force", force)
	r.mu.Lock()
	defer r.mu.Unlock()
	local, err := r.r.Storer.Reference(ref)
	if err != nil {
		return fail(fmt.Errorf("local ref: %w", ErrNotFound))
	}
	opts := &git.PushOptions{RemoteName: RemoteName, Auth: r.auth, RefSpecs: []config.RefSpec{config.RefSpec(name + ":" + name)}}
	if lease, err := r.r.Storer.Reference(trackingName(ref)); force && err == nil {
		// go-git checks the advertised value; the remote then refuses the
		// update unless the ref is still at that value when it applies it.
		opts.RefSpecs[0] = "+" + opts.RefSpecs[0]
		opts.RequireRemoteRefs = []config.RefSpec{config.RefSpec(lease.Hash().String() + ":" + name)}
	}
	if err := pushError(r.r.PushContext(ctx, opts)); err != nil {
		return fail(fmt.Errorf("to %s: %w", r.url, err))
	}
	if err := r.r.Storer.SetReference(plumbing.NewHashReference(trackingName(ref), local.Hash())); err != nil {
		return fail(fmt.Errorf("record the pushed ref: %w", err))
	}
	return nil
}

// DeleteRef deletes the ref name (a full name under refs/) on the remote,
// whatever it points at, and the local and remote-tracking refs of that
// name; on a repository without a remote, only the local ref. Only olmops'
// own refs can be deleted (see PushRef); others fail with ErrForceRefused.
// Deleting a ref that does not exist succeeds.
func (r *Repo) DeleteRef(ctx context.Context, name string) error {
	fail := func(err error) error { return fmt.Errorf("gitsource: delete %s: %w", name, err) }
	ref := plumbing.ReferenceName(name)
	if err := checkRefName(name); err != nil {
		return fail(err)
	}
	if !owned(ref) {
		return fail(ErrForceRefused)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("deleting", "url", r.url, "ref", name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.url != "" {
		opts := &git.PushOptions{RemoteName: RemoteName, Auth: r.auth, RefSpecs: []config.RefSpec{config.RefSpec(":" + name)}}
		if err := pushError(r.r.PushContext(ctx, opts)); err != nil {
			return fail(fmt.Errorf("on %s: %w", r.url, err))
		}
		if err := removeRef(r, trackingName(ref)); err != nil {
			return fail(err)
		}
	}
	if err := removeRef(r, ref); err != nil {
		return fail(err)
	}
	return nil
}

func removeRef(r *Repo, name plumbing.ReferenceName) error {
	err := r.r.Storer.RemoveReference(name)
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return err
	}
	return nil
}

// IsAncestor tells whether commit a is reachable from commit b, following
// every parent; a commit is its own ancestor, as in git merge-base
// --is-ancestor. It walks b's history until it meets a, so a "no" costs a
// walk of all of it.
func (r *Repo) IsAncestor(ctx context.Context, a, b plumbing.Hash) (bool, error) {
	fail := func(err error) (bool, error) {
		return false, fmt.Errorf("gitsource: is %s an ancestor of %s: %w", a, b, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.r.CommitObject(a); err != nil {
		return fail(fmt.Errorf("commit %s: %w", a, ErrNotFound))
	}
	seen := map[plumbing.Hash]bool{b: true}
	queue := []plumbing.Hash{b}
	for n := 0; len(queue) > 0; n++ {
		h := queue[0]
		queue = queue[1:]
		if h == a {
			return true, nil
		}
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
		}
		c, err := r.r.CommitObject(h)
		if err != nil {
			return fail(fmt.Errorf("commit %s: %w", h, ErrNotFound))
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, ctx.Err()
}
