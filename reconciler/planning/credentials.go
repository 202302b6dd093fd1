package planning

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/reconciler/credentials"
)

// errConfig marks a failure only a change of the Planner, a Secret or
// olmops.yaml can fix: retrying would fail the same way.
var errConfig = errors.New("configuration")

// readCredentials reads spec.secretRef (in a Repository's format) and
// spec.forge.tokenSecretRef from obj's namespace. A Secret that cannot
// work as it is fails as errConfig: retrying it would fail the same way.
func readCredentials(ctx context.Context, reader client.Reader, obj *v1alpha1.Planner) (*credentials.Set, error) {
	var forgeRef *v1alpha1.LocalObjectReference
	if f := obj.Spec.Forge; f != nil {
		forgeRef = f.TokenSecretRef
	}
	c, err := credentials.Read(ctx, reader, obj.Namespace, obj.Spec.SecretRef, forgeRef)
	if errors.Is(err, credentials.ErrIncomplete) {
		err = fmt.Errorf("%w: %w", errConfig, err)
	}
	return c, err
}

// cacheKey names a Planner's clone after the object, its URL and its
// credentials, so that no Planner reads through a clone fetched with
// another's credentials.
func cacheKey(obj *v1alpha1.Planner, auth gitsource.Auth) string {
	return credentials.Fingerprint(auth, obj.Namespace, obj.Name, obj.Spec.URL)[:16]
}

// forgeFunc gives the planner its forge: spec.forge, else the forge
// section of olmops.yaml with its tokenSecret read from obj's namespace.
// A github forge goes through the API; anything else is nil, which the
// planner takes as the git-only forge on the clone.
func (r *Reconciler) forgeFunc(ctx context.Context, obj *v1alpha1.Planner, creds *credentials.Set) func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	return func(cfg *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
		spec, tokenSecret := forgeSpec(obj, cfg)
		if spec.Type != v1alpha1.ForgeGitHub {
			return nil, nil
		}
		if err := creds.ReadForgeToken(ctx, r.APIReader, obj.Namespace, tokenSecret); err != nil {
			return nil, err
		}
		token := creds.ForgeToken
		if token == "" {
			return nil, fmt.Errorf("%w: a github forge needs a token: spec.forge.tokenSecretRef, or tokenSecret in olmops.yaml's forge", errConfig)
		}
		return github.New(ctx, github.Options{Owner: spec.Owner, Repo: spec.Repo, Token: token, BaseURL: spec.BaseURL, HTTPClient: r.HTTPClient})
	}
}

func forgeSpec(obj *v1alpha1.Planner, cfg *v1alpha1.RepositoryConfig) (v1alpha1.ForgeSpec, *v1alpha1.SecretKeyRef) {
	if obj.Spec.Forge != nil {
		return *obj.Spec.Forge, nil
	}
	f := cfg.Spec.Forge
	if f == nil {
		return v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGit}, nil
	}
	return v1alpha1.ForgeSpec{Type: f.Type, Owner: f.Owner, Repo: f.Repo, BaseURL: f.BaseURL}, f.TokenSecret
}
