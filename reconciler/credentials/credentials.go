// Package credentials reads the Secrets an olmops object names into Git
// and forge credentials, and keeps every value it read so that messages
// bound for conditions, events and logs can be redacted. The Repository
// and Planner controllers read their Secrets through it, so the two
// cannot drift in which keys they read or what they redact.
package credentials

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
)

// ErrIncomplete marks a Secret that was read but cannot be used as it is:
// retrying fails the same way until someone edits the Secret.
var ErrIncomplete = errors.New("incomplete secret")

// Set holds the credentials of one pass of one object.
type Set struct {
	// Git authenticates fetches and pushes.
	Git gitsource.Auth
	// ForgeToken authenticates to the forge's API.
	ForgeToken string
	values     []string
}

// Read reads gitRef (a Secret in a Repository's format) and forgeRef (a
// Secret with a token) from namespace; either may be nil. On error the
// Set still redacts what was read before it.
func Read(ctx context.Context, reader client.Reader, namespace string, gitRef, forgeRef *v1alpha1.LocalObjectReference) (*Set, error) {
	s := &Set{}
	if gitRef != nil {
		data, err := Data(ctx, reader, namespace, gitRef.Name)
		if err != nil {
			return s, err
		}
		s.Git = gitsource.Auth{
			Token:         string(data[v1alpha1.SecretKeyToken]),
			Username:      string(data[v1alpha1.SecretKeyUsername]),
			Password:      string(data[v1alpha1.SecretKeyPassword]),
			SSHKey:        data[v1alpha1.SecretKeyIdentity],
			SSHKnownHosts: string(data[v1alpha1.SecretKeyKnownHosts]),
		}
		s.Keep(s.Git.Token, s.Git.Password, string(s.Git.SSHKey))
		if len(s.Git.SSHKey) > 0 && s.Git.SSHKnownHosts == "" {
			return s, fmt.Errorf("%w: secret %s: %s needs %s, to check the SSH server's key", ErrIncomplete, gitRef.Name, v1alpha1.SecretKeyIdentity, v1alpha1.SecretKeyKnownHosts)
		}
	}
	if forgeRef != nil {
		if err := s.readToken(ctx, reader, namespace, forgeRef.Name, v1alpha1.SecretKeyToken); err != nil {
			return s, err
		}
	}
	return s, nil
}

// ReadForgeToken reads ref's key (token by default) as the forge token,
// unless the Set has one already: an object's own forge Secret wins over
// one named in olmops.yaml. A nil ref reads nothing.
func (s *Set) ReadForgeToken(ctx context.Context, reader client.Reader, namespace string, ref *v1alpha1.SecretKeyRef) error {
	if s.ForgeToken != "" || ref == nil {
		return nil
	}
	return s.readToken(ctx, reader, namespace, ref.Name, cmp.Or(ref.Key, v1alpha1.SecretKeyToken))
}

func (s *Set) readToken(ctx context.Context, reader client.Reader, namespace, name, key string) error {
	data, err := Data(ctx, reader, namespace, name)
	if err != nil {
		return err
	}
	s.ForgeToken = string(data[key])
	s.Keep(s.ForgeToken)
	return nil
}

// Keep adds values read elsewhere (a registry's dockerconfigjson) to
// what Redact hides.
func (s *Set) Keep(values ...string) { s.values = append(s.values, values...) }

// Redact replaces every secret value, and credentials embedded in URLs,
// in msg. Values shorter than four bytes are left: replacing them would
// mangle the message and hide nothing worth hiding.
func (s *Set) Redact(msg string) string {
	for _, v := range s.values {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "***")
		}
	}
	return gitsource.RedactURLs(msg)
}

// Data reads the Secret name in namespace.
func Data(ctx context.Context, reader client.Reader, namespace, name string) (map[string][]byte, error) {
	var sec corev1.Secret
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &sec); err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	return sec.Data, nil
}

// Fingerprint hashes parts and auth, each length-prefixed, so that
// caches keyed by it (clones, forge clients) are never shared between
// callers with different credentials.
func Fingerprint(auth gitsource.Auth, parts ...string) string {
	h := sha256.New()
	for _, part := range slices.Concat(parts, []string{auth.Username, auth.Password, auth.Token, string(auth.SSHKey), auth.SSHKnownHosts}) {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}
