package credentials_test

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/credentials"
)

func TestRead(t *testing.T) {
	secret := func(name string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	reader := fake.NewClientBuilder().WithObjects(
		secret("https", map[string]string{v1alpha1.SecretKeyUsername: "olmops", v1alpha1.SecretKeyPassword: "pw-abcdefgh"}),
		secret("ssh-no-hosts", map[string]string{v1alpha1.SecretKeyIdentity: "-----BEGIN KEY-----xyz"}),
		secret("forge", map[string]string{v1alpha1.SecretKeyToken: "ghp_own", "alt": "ghp_alt"}),
	).Build()
	ref := func(name string) *v1alpha1.LocalObjectReference {
		if name == "" {
			return nil
		}
		return &v1alpha1.LocalObjectReference{Name: name}
	}
	tests := []struct {
		name          string
		git, forge    string
		yamlRef       *v1alpha1.SecretKeyRef
		wantErr       error
		wantErrText   string
		wantToken     string
		hidden, shown string
	}{
		{name: "https", git: "https", hidden: "pw-abcdefgh", shown: "olmops"},
		{name: "ssh key without known hosts is incomplete, and still hidden", git: "ssh-no-hosts",
			wantErr: credentials.ErrIncomplete, wantErrText: "secret ssh-no-hosts: identity needs known_hosts", hidden: "-----BEGIN KEY-----xyz"},
		{name: "missing secret", git: "absent", wantErrText: "read secret absent"},
		{name: "object's forge token", forge: "forge", wantToken: "ghp_own", hidden: "ghp_own"},
		{name: "object's forge token wins over olmops.yaml's", forge: "forge",
			yamlRef: &v1alpha1.SecretKeyRef{Name: "forge", Key: "alt"}, wantToken: "ghp_own", shown: "ghp_alt"},
		{name: "olmops.yaml's token with its key", yamlRef: &v1alpha1.SecretKeyRef{Name: "forge", Key: "alt"},
			wantToken: "ghp_alt", hidden: "ghp_alt"},
		{name: "olmops.yaml's token, default key", yamlRef: &v1alpha1.SecretKeyRef{Name: "forge"},
			wantToken: "ghp_own", hidden: "ghp_own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := credentials.Read(t.Context(), reader, "ops", ref(tt.git), ref(tt.forge))
			if err == nil {
				err = s.ReadForgeToken(t.Context(), reader, "ops", tt.yamlRef)
			}
			switch {
			case tt.wantErrText == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErrText != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErrText)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErrText)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("error %v is not %v", err, tt.wantErr)
			case tt.wantErr == nil && errors.Is(err, credentials.ErrIncomplete):
				t.Fatalf("error %v must not be ErrIncomplete: a missing Secret may appear", err)
			}
			if s.ForgeToken != tt.wantToken {
				t.Errorf("ForgeToken %q, want %q", s.ForgeToken, tt.wantToken)
			}
			msg := "failed with " + tt.hidden + " as " + tt.shown
			got := s.Redact(msg)
			if tt.hidden != "" && strings.Contains(got, tt.hidden) {
				t.Errorf("Redact(%q) = %q: %q not hidden", msg, got, tt.hidden)
			}
			if tt.shown != "" && !strings.Contains(got, tt.shown) {
				t.Errorf("Redact(%q) = %q: %q hidden, though no secret", msg, got, tt.shown)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	base := gitsource.Auth{Username: "u", Password: "p", Token: "t", SSHKey: []byte("k"), SSHKnownHosts: "h"}
	variants := map[string]string{
		"base":           credentials.Fingerprint(base, "a", "b"),
		"parts shifted":  credentials.Fingerprint(base, "ab", ""),
		"other part":     credentials.Fingerprint(base, "a", "c"),
		"username":       credentials.Fingerprint(gitsource.Auth{Username: "v", Password: "p", Token: "t", SSHKey: []byte("k"), SSHKnownHosts: "h"}, "a", "b"),
		"password":       credentials.Fingerprint(gitsource.Auth{Username: "u", Password: "q", Token: "t", SSHKey: []byte("k"), SSHKnownHosts: "h"}, "a", "b"),
		"token":          credentials.Fingerprint(gitsource.Auth{Username: "u", Password: "p", Token: "s", SSHKey: []byte("k"), SSHKnownHosts: "h"}, "a", "b"),
		"ssh key":        credentials.Fingerprint(gitsource.Auth{Username: "u", Password: "p", Token: "t", SSHKey: []byte("j"), SSHKnownHosts: "h"}, "a", "b"),
		"known hosts":    credentials.Fingerprint(gitsource.Auth{Username: "u", Password: "p", Token: "t", SSHKey: []byte("k"), SSHKnownHosts: "g"}, "a", "b"),
		"field shifted":  credentials.Fingerprint(gitsource.Auth{Username: "up", Token: "t", SSHKey: []byte("k"), SSHKnownHosts: "h"}, "a", "b"),
		"part into auth": credentials.Fingerprint(gitsource.Auth{Username: "b", Password: "u", Token: "p", SSHKey: []byte("t"), SSHKnownHosts: "k"}, "a"),
	}
	seen := map[string]string{}
	for name, fp := range variants {
		if other, ok := seen[fp]; ok {
			t.Errorf("%s and %s share a fingerprint: caches would be shared across credentials", name, other)
		}
		seen[fp] = name
	}
	if credentials.Fingerprint(base, "a", "b") != variants["base"] {
		t.Error("Fingerprint is not deterministic")
	}
}
