package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/reconciler/credentials"
)

// Sources keeps one bare clone per repository URL and set of credentials
// under CacheDir, fetched on every pass, and the forge of each
// Repository. It is safe for concurrent use; a clone is fetched by one
// pass at a time.
type Sources struct {
	// CacheDir holds the clones.
	CacheDir string
	// HTTPClient, when set, sends the GitHub forge's requests.
	HTTPClient *http.Client
	// MaxFetchSize caps the bytes one clone or fetch of an HTTP(S)
	// repository reads (gitsource.Options.MaxFetchSize); 0 means no cap.
	MaxFetchSize int64

	mu      sync.Mutex
	clones  map[string]*clone
	forges  map[string]forgeEntry
	objects map[string]string // Repository → clone key, for Forget
}

type clone struct {
	mu   sync.Mutex
	repo *gitsource.Repo
}

type forgeEntry struct {
	key   string
	forge gitsource.Forge
}

// Credentials reads the Secrets obj names: spec.secretRef for Git and
// spec.forge.tokenSecretRef for the forge, from obj's namespace.
func (s *Sources) Credentials(ctx context.Context, reader client.Reader, obj *v1alpha1.Repository) (*credentials.Set, error) {
	var forgeRef *v1alpha1.LocalObjectReference
	if f := obj.Spec.Forge; f != nil {
		forgeRef = f.TokenSecretRef
	}
	return credentials.Read(ctx, reader, obj.Namespace, obj.Spec.SecretRef, forgeRef)
}

// Fetch returns obj's repository, fetched now: cloned into the cache on
// first use, fetched on every later pass.
func (s *Sources) Fetch(ctx context.Context, obj *v1alpha1.Repository, creds *credentials.Set) (*gitsource.Repo, error) {
	if obj.Spec.Timeout.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, obj.Spec.Timeout.Duration)
		defer cancel()
	}
	fp := credentials.Fingerprint(creds.Git, obj.Spec.URL)
	s.mu.Lock()
	if s.clones == nil {
		s.clones, s.objects, s.forges = map[string]*clone{}, map[string]string{}, map[string]forgeEntry{}
	}
	c, ok := s.clones[fp]
	if !ok {
		c = &clone{}
		s.clones[fp] = c
	}
	s.objects[client.ObjectKeyFromObject(obj).String()] = fp
	s.mu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.repo == nil {
		repo, err := gitsource.Open(ctx, gitsource.Options{URL: obj.Spec.URL, CacheDir: filepath.Join(s.CacheDir, fp[:16]), Auth: creds.Git,
			MaxFetchSize: s.MaxFetchSize})
		if err != nil {
			return nil, fmt.Errorf("clone %s: %w", obj.Spec.URL, err)
		}
		c.repo = repo
		return repo, nil
	}
	if err := c.repo.Fetch(ctx); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", obj.Spec.URL, err)
	}
	return c.repo, nil
}

// Forget drops what is kept for a deleted Repository. Its clone stays on
// disk for other Repositories of the same URL.
func (s *Sources) Forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, id)
	delete(s.forges, id)
}

// Forge returns where obj's commit statuses go: spec.forge, else the
// forge section of cfg, the commit's olmops.yaml; a github forge posts through
// the API, anything else as git notes pushed to the repository. The
// token of olmops.yaml's forge is its tokenSecret, read from obj's
// namespace, unless spec.forge.tokenSecretRef gave one.
func (s *Sources) Forge(ctx context.Context, reader client.Reader, obj *v1alpha1.Repository, repo *gitsource.Repo, cfg *v1alpha1.RepositoryConfig, creds *credentials.Set) (gitsource.Forge, error) {
	spec, tokenSecret := forgeSpec(obj, cfg)
	if err := creds.ReadForgeToken(ctx, reader, obj.Namespace, tokenSecret); err != nil {
		return nil, err
	}
	id := client.ObjectKeyFromObject(obj).String()
	key := fmt.Sprintf("%p\x00%s\x00%s\x00%s\x00%s\x00%s", repo, spec.Type, spec.Owner, spec.Repo, spec.BaseURL, credentials.Fingerprint(gitsource.Auth{}, creds.ForgeToken))
	s.mu.Lock()
	e, ok := s.forges[id]
	s.mu.Unlock()
	if ok && e.key == key {
		return e.forge, nil
	}
	var f gitsource.Forge
	var err error
	if spec.Type == v1alpha1.ForgeGitHub {
		if creds.ForgeToken == "" {
			return nil, errors.New("a github forge needs spec.forge.tokenSecretRef with a token")
		}
		if f, err = github.New(ctx, github.Options{Owner: spec.Owner, Repo: spec.Repo, Token: creds.ForgeToken,
			BaseURL: spec.BaseURL, HTTPClient: s.HTTPClient}); err != nil {
			return nil, err
		}
	} else {
		f = gitsource.NewGitForge(repo)
	}
	s.mu.Lock()
	if s.forges == nil {
		s.forges = map[string]forgeEntry{}
	}
	s.forges[id] = forgeEntry{key: key, forge: f}
	s.mu.Unlock()
	return f, nil
}

// forgeSpec is spec.forge, or cfg's forge and its token's Secret when it
// is unset.
func forgeSpec(obj *v1alpha1.Repository, cfg *v1alpha1.RepositoryConfig) (v1alpha1.ForgeSpec, *v1alpha1.SecretKeyRef) {
	if obj.Spec.Forge != nil {
		return *obj.Spec.Forge, nil
	}
	f := cfg.Spec.Forge
	if f == nil {
		return v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGit}, nil
	}
	return v1alpha1.ForgeSpec{Type: f.Type, Owner: f.Owner, Repo: f.Repo, BaseURL: f.BaseURL}, f.TokenSecret
}
