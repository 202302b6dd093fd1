package gitsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-logr/logr"
)

// RemoteName is the remote a Repo fetches from and pushes to.
const RemoteName = "origin"

var (
	// ErrAuth reports credentials the remote refused, or no credentials for
	// a remote that wants them.
	ErrAuth = errors.New("authentication failed (check the credentials)")
	// ErrNoRemote reports a Fetch or Push on a local repository without an
	// origin remote.
	ErrNoRemote = errors.New("repository has no remote " + RemoteName)
	// ErrNotFound reports a reference or commit that does not exist.
	ErrNotFound = errors.New("not found")
)

// Options say which repository Open opens. Exactly one of URL and Path is
// set.
type Options struct {
	// URL of a remote repository (https://, http://, ssh://, user@host:path
	// or file://). It is cloned bare into CacheDir on first use and fetched
	// on every Open after that.
	URL string
	// CacheDir holds the clones of remote URLs, one folder per URL (without
	// credentials). Required with URL.
	CacheDir string
	// Path of a repository on disk (bare or with a worktree), opened in
	// place and not fetched. A Commit onto the checked-out branch brings
	// the worktree's files and index along (see HoldIndex).
	Path string
	// Auth authenticates to URL, or to Path's origin for Fetch and Push.
	Auth Auth
	// Exclusive, with URL, holds a lock on the cache clone from Open to
	// Close, so processes sharing CacheDir take turns instead of reading
	// refs another one is half-way through writing. Open waits for the
	// lock until ctx ends.
	Exclusive bool
	// MaxFetchSize caps the bytes one clone or fetch of an HTTP(S) remote
	// reads; past it the fetch stops with a *FetchTooLargeError and keeps
	// nothing. 0 means no cap. SSH and file remotes are not capped.
	MaxFetchSize int64
}

// Repo is an open repository. Its methods are safe for concurrent use.
type Repo struct {
	// mu serialises every use of r: go-git's storage is not safe for
	// concurrent use.
	mu sync.Mutex
	// forgeMu serialises the writes of GitForges on r: they stage
	// refs/notes/olmops and proposal records in shared local refs.
	forgeMu sync.Mutex
	r       *git.Repository
	url     string // the remote, redacted; "" for a local repository without origin
	auth    transport.AuthMethod
	mirror  bool // r is a cache clone: branches are read from refs/remotes/origin
	lock    *os.File
	// maxFetch is Options.MaxFetchSize.
	maxFetch int64
	// wtIndex is the worktree's index as olmops last read or wrote it;
	// indexHolds counts the HoldIndex calls not yet released.
	wtIndex    *worktreeIndex
	indexHolds int
	// While the index is held, packs are the packs Commit wrote, oldest
	// first, and known the objects it wrote or found (see pack.go).
	packs   []ownPack
	known   map[plumbing.Hash]bool
	trees   *treeMemo
	present *present
}

// Open opens the repository opts name; see Options.
func Open(ctx context.Context, opts Options) (*Repo, error) {
	switch {
	case (opts.URL == "") == (opts.Path == ""):
		return nil, errors.New("gitsource: open: set exactly one of URL and Path")
	case opts.Path != "":
		return openPath(ctx, opts)
	case opts.CacheDir == "":
		return nil, fmt.Errorf("gitsource: open %s: CacheDir is required with URL", redact(opts.URL))
	}
	return openURL(ctx, opts)
}

func openPath(ctx context.Context, opts Options) (*Repo, error) {
	r, err := plainOpen(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("gitsource: open %s: %w", opts.Path, err)
	}
	repo := &Repo{r: r}
	if rem, err := r.Remote(RemoteName); err == nil && len(rem.Config().URLs) > 0 {
		url := rem.Config().URLs[0]
		repo.url = redact(url)
		if repo.auth, err = opts.Auth.method(url); err != nil {
			return nil, fmt.Errorf("gitsource: open %s: %w", opts.Path, err)
		}
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("opened repository", "path", opts.Path, "remote", repo.url)
	return repo, nil
}

func openURL(ctx context.Context, opts Options) (*Repo, error) {
	display := redact(opts.URL)
	auth, err := opts.Auth.method(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("gitsource: open %s: %w", display, err)
	}
	dir := filepath.Join(opts.CacheDir, cacheName(opts.URL))
	var lock *os.File
	if opts.Exclusive {
		if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("gitsource: open %s: %w", display, err)
		}
		if lock, err = lockFile(ctx, dir+".lock"); err != nil {
			return nil, fmt.Errorf("gitsource: open %s: %w", display, err)
		}
	}
	repo, err := openCache(ctx, opts, dir, auth)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	repo.lock = lock
	return repo, nil
}

// Close closes the packfiles the Repo keeps open and releases the cache
// clone's lock (see Options.Exclusive); the Repo may not be used after it,
// except by what its snapshots already returned.
func (r *Repo) Close() error {
	r.mu.Lock()
	err := r.closeStorage()
	r.mu.Unlock()
	if r.lock != nil {
		err = errors.Join(err, r.lock.Close())
		r.lock = nil
	}
	return err
}

func openCache(ctx context.Context, opts Options, dir string, auth transport.AuthMethod) (*Repo, error) {
	log := logr.FromContextOrDiscard(ctx)
	url := opts.URL
	display := redact(url)
	r, err := plainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		log.V(1).Info("cloning", "url", display, "cache", dir)
		if err := clone(ctx, url, opts.CacheDir, dir, auth, opts.MaxFetchSize); err != nil {
			return nil, fmt.Errorf("gitsource: clone %s: %w", display, err)
		}
		r, err = plainOpen(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("gitsource: open cache %s of %s: %w", dir, display, err)
	}
	if err := forgetCredentials(r, url); err != nil {
		return nil, fmt.Errorf("gitsource: open cache %s of %s: %w", dir, display, err)
	}
	repo := &Repo{r: r, url: display, auth: auth, mirror: true, maxFetch: opts.MaxFetchSize}
	if err := repo.Fetch(ctx); err != nil {
		return nil, err
	}
	return repo, nil
}

// clone initialises a bare repository next to dir, configures origin and
// renames it into place, so a failed clone leaves no half-made cache.
// Open fetches right after.
func clone(ctx context.Context, url, cacheDir, dir string, auth transport.AuthMethod, maxFetch int64) error {
	// The cache holds private repositories: only olmops reads it.
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(cacheDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cacheDir, ".clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	r, err := git.PlainInit(tmp, true)
	if err != nil {
		return err
	}
	_, err = r.CreateRemote(&config.RemoteConfig{
		Name: RemoteName,
		URLs: []string{withoutCredentials(url)},
		Fetch: []config.RefSpec{
			"+refs/heads/*:refs/remotes/" + RemoteName + "/*",
			"+refs/tags/*:refs/tags/*",
		},
	})
	if err != nil {
		return err
	}
	specs, err := fetchSpecs(r)
	if err != nil {
		return err
	}
	if err := fetch(ctx, r, auth, specs, maxFetch); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil && !isExist(err) {
		return err
	}
	return nil // lost a race with another clone of the same URL: use it
}

// forgetCredentials rewrites the origin of a cache clone made before
// credentials were kept out of its config.
func forgetCredentials(r *git.Repository, url string) error {
	cfg, err := r.Config()
	if err != nil {
		return err
	}
	rem, ok := cfg.Remotes[RemoteName]
	if !ok || len(rem.URLs) == 0 || rem.URLs[0] == withoutCredentials(url) {
		return nil
	}
	rem.URLs = []string{withoutCredentials(url)}
	return r.SetConfig(cfg)
}

func isExist(err error) bool {
	return errors.Is(err, os.ErrExist) || strings.Contains(err.Error(), "directory not empty")
}

// cacheName names the cache folder of url: readable, and unique per URL
// without credentials.
func cacheName(url string) string {
	key := url
	if ep, err := transport.NewEndpoint(url); err == nil {
		ep.Password = ""
		if ep.Protocol == "http" || ep.Protocol == "https" {
			ep.User = ""
		}
		key = ep.String()
	}
	sum := sha256.Sum256([]byte(key))
	base := strings.TrimSuffix(filepath.Base(strings.TrimRight(key, "/")), ".git")
	base = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, base)
	return base + "-" + hex.EncodeToString(sum[:8])
}

// Fetch brings the remote's branches and tags into the repository, with
// refs/notes/olmops and refs/olmops/* (see RemoteRef). In a cache clone,
// branches land in refs/remotes/origin; a repository opened by Path fetches
// its origin's configured refspecs. Remote-tracking refs the remote no
// longer has are pruned, as git fetch --prune does.
func (r *Repo) Fetch(ctx context.Context) error {
	if r.url == "" {
		return fmt.Errorf("gitsource: fetch: %w", ErrNoRemote)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("fetching", "url", r.url)
	r.mu.Lock()
	defer r.mu.Unlock()
	specs, err := fetchSpecs(r.r)
	if err == nil {
		err = fetch(ctx, r.r, r.auth, specs, r.maxFetch)
	}
	if err != nil {
		return fmt.Errorf("gitsource: fetch %s: %w", r.url, err)
	}
	return nil
}

// fetch runs one go-git fetch, reading at most maxFetch bytes when
// maxFetch > 0: counted on the wire over HTTP(S), and as the pack arrives
// over any transport.
func fetch(ctx context.Context, r *git.Repository, auth transport.AuthMethod, specs []config.RefSpec, maxFetch int64) error {
	ctx, budget := withFetchBudget(ctx, maxFetch)
	capped, err := withPackCap(r, budget)
	if err != nil {
		return err
	}
	err = capped.FetchContext(ctx, &git.FetchOptions{RemoteName: RemoteName, RefSpecs: specs, Auth: auth, Prune: true, Tags: git.NoTags})
	if tooLarge := budget.err(); tooLarge != nil {
		removePartialPacks(r)
		return tooLarge
	}
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return nil
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w: %w", ErrAuth, err)
	}
	return err
}

// Resolve names a commit: a full ref name (refs/...), a branch, a tag, a
// full or abbreviated commit hash, or a revision expression such as
// main~1. In a cache clone a branch name means the remote's branch as last
// fetched, so a local branch left by a rejected push never hides it; a
// local branch is used only when the remote has none of that name.
func (r *Repo) Resolve(ctx context.Context, ref string) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ref)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: resolve %q: %w", ref, err)
	}
	return h, nil
}

func (r *Repo) resolve(ref string) (plumbing.Hash, error) {
	// A revision expression: resolve its base our way, the rest go-git's.
	if i := strings.IndexAny(ref, "~^"); i > 0 {
		base, err := r.resolve(ref[:i])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h, err := r.r.ResolveRevision(plumbing.Revision(base.String() + ref[i:]))
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return *h, nil
	}
	var names []plumbing.ReferenceName
	switch {
	case strings.HasPrefix(ref, "refs/") || ref == "HEAD":
		names = []plumbing.ReferenceName{plumbing.ReferenceName(ref)}
	case r.mirror:
		names = []plumbing.ReferenceName{plumbing.NewRemoteReferenceName(RemoteName, ref), plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref)}
	default:
		names = []plumbing.ReferenceName{plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref), plumbing.NewRemoteReferenceName(RemoteName, ref)}
	}
	for _, name := range names {
		if rf, err := r.r.Reference(name, true); err == nil {
			return r.peel(rf.Hash())
		}
	}
	h, err := r.r.ResolveRevision(plumbing.Revision(ref)) // a full or abbreviated hash
	if err != nil {
		return plumbing.ZeroHash, ErrNotFound
	}
	return r.peel(*h)
}

// peel follows annotated tags to the commit they name.
func (r *Repo) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for range 10 {
		obj, err := r.r.Object(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, ErrNotFound)
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o.Hash, nil
		case *object.Tag:
			h = o.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("%s is a %s, not a commit", h, obj.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%s: tags nested too deep", h)
}
