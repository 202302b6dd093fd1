package planning

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
)

// errConfig marks a failure only a change of the Planner, a Secret or
// olmops.yaml can fix: retrying would fail the same way.
var errConfig = errors.New("configuration")

// credentials are a Planner's Secrets, read once per pass.
type credentials struct {
	git        gitsource.Auth
	forgeToken string
	secrets    []string
}

// redact replaces every secret value, and credentials embedded in URLs,
// in s: messages bound for conditions, events and logs go through it.
func (c *credentials) redact(s string) string {
	for _, v := range c.secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "***")
		}
	}
	return gitsource.RedactURLs(s)
}

// readCredentials reads spec.secretRef (in a Repository's format) and
// spec.forge.tokenSecretRef from obj's namespace.
func readCredentials(ctx context.Context, reader client.Reader, obj *v1alpha1.Planner) (*credentials, error) {
	c := &credentials{}
	if ref := obj.Spec.SecretRef; ref != nil {
		data, err := secretData(ctx, reader, obj.Namespace, ref.Name)
		if err != nil {
			return c, err
		}
		c.git = gitsource.Auth{
			Token:         string(data[v1alpha1.SecretKeyToken]),
			Username:      string(data[v1alpha1.SecretKeyUsername]),
			Password:      string(data[v1alpha1.SecretKeyPassword]),
			SSHKey:        data[v1alpha1.SecretKeyIdentity],
			SSHKnownHosts: string(data[v1alpha1.SecretKeyKnownHosts]),
		}
		c.secrets = append(c.secrets, c.git.Token, c.git.Password, string(c.git.SSHKey))
		if len(c.git.SSHKey) > 0 && c.git.SSHKnownHosts == "" {
			return c, fmt.Errorf("%w: secret %s: %s needs %s, to check the SSH server's key", errConfig, ref.Name, v1alpha1.SecretKeyIdentity, v1alpha1.SecretKeyKnownHosts)
		}
	}
	if f := obj.Spec.Forge; f != nil && f.TokenSecretRef != nil {
		data, err := secretData(ctx, reader, obj.Namespace, f.TokenSecretRef.Name)
		if err != nil {
			return c, err
		}
		c.forgeToken = string(data[v1alpha1.SecretKeyToken])
		c.secrets = append(c.secrets, c.forgeToken)
	}
	return c, nil
}

func secretData(ctx context.Context, reader client.Reader, namespace, name string) (map[string][]byte, error) {
	var sec corev1.Secret
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &sec); err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	return sec.Data, nil
}

// cacheKey names a Planner's clone after the object, its URL and its
// credentials, so that no Planner reads through a clone fetched with
// another's credentials.
func cacheKey(obj *v1alpha1.Planner, auth gitsource.Auth) string {
	h := sha256.New()
	for _, part := range []string{obj.Namespace, obj.Name, obj.Spec.URL, auth.Username, auth.Password, auth.Token, string(auth.SSHKey), auth.SSHKnownHosts} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// forgeFunc gives the planner its forge: spec.forge, else the forge
// section of olmops.yaml with its tokenSecret read from obj's namespace.
// A github forge goes through the API; anything else is nil, which the
// planner takes as the git-only forge on the clone.
func (r *Reconciler) forgeFunc(ctx context.Context, obj *v1alpha1.Planner, creds *credentials) func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	return func(cfg *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
		spec, tokenSecret := forgeSpec(obj, cfg)
		if spec.Type != v1alpha1.ForgeGitHub {
			return nil, nil
		}
		token := creds.forgeToken
		if token == "" && tokenSecret != nil {
			data, err := secretData(ctx, r.APIReader, obj.Namespace, tokenSecret.Name)
			if err != nil {
				return nil, err
			}
			token = string(data[cmp.Or(tokenSecret.Key, v1alpha1.SecretKeyToken)])
			creds.secrets = append(creds.secrets, token)
		}
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
