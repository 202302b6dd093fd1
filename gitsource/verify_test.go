package gitsource_test

import (
	"errors"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

func TestVerifyCommit(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", "root")
	good, goodPub := gittest.NewSigningKey(t, "Release")
	other, otherPub := gittest.NewSigningKey(t, "Mallory")
	_, thirdPub := gittest.NewSigningKey(t, "Spare")
	signedGood := gittest.SignedCommit(t, dir, "main", "signed", good)
	signedOther := gittest.SignedCommit(t, dir, "main", "signed by another", other)
	unsigned := gittest.SignedCommit(t, dir, "main", "unsigned", nil)
	tampered := rewrite(t, dir, signedGood, func(c *object.Commit) { c.Message = "signed, then rewritten" })
	sshSigned := rewrite(t, dir, signedGood, func(c *object.Commit) {
		c.PGPSignature = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
	})
	x509Signed := rewrite(t, dir, signedGood, func(c *object.Commit) {
		c.PGPSignature = "-----BEGIN SIGNED MESSAGE-----\nMIAG\n-----END SIGNED MESSAGE-----\n"
	})
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	rings := []gitsource.KeyRing{{Name: "spare.asc", Armored: thirdPub}, {Name: "release.asc", Armored: goodPub}}

	tests := []struct {
		name   string
		commit string
		keys   []gitsource.KeyRing
		want   string // "" verifies; else in the UnverifiedError's reason
	}{
		{"signed by a listed key, in the second ring", signedGood, rings, ""},
		{"unsigned", unsigned, rings, "it is not signed"},
		{"signed by another key", signedOther, rings, "signed by key " + strings.ToUpper(other.PrimaryKey.KeyIdString()) + ", which none"},
		{"signature of another content", tampered, rings, "its signature does not verify: key ring release.asc: "},
		{"broken SSH signature", sshSigned, rings, "its SSH signature does not parse"},
		{"X.509 signature", x509Signed, rings, "neither OpenPGP nor SSH"},
		{"the other key listed alone", signedGood, []gitsource.KeyRing{{Name: "mallory.asc", Armored: otherPub}}, "none of the configured key rings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := repo.VerifyCommit(t.Context(), plumbing.NewHash(tt.commit), tt.keys)
			if tt.want == "" {
				if err != nil || s.KeyRing != "release.asc" || s.Identity != "Release <release@example.com>" || s.KeyID != good.PrimaryKey.KeyIdString() {
					t.Fatalf("VerifyCommit = %+v, %v", s, err)
				}
				return
			}
			var ue *gitsource.UnverifiedError
			if !errors.As(err, &ue) || ue.Commit.String() != tt.commit || !strings.Contains(err.Error(), tt.want) || s != nil {
				t.Fatalf("VerifyCommit = %+v, %v; want an UnverifiedError with %q", s, err, tt.want)
			}
		})
	}

	t.Run("bad key rings", func(t *testing.T) {
		for _, keys := range [][]gitsource.KeyRing{nil, {{Name: "junk.asc", Armored: "not a key"}}} {
			_, err := repo.VerifyCommit(t.Context(), plumbing.NewHash(signedGood), keys)
			var ue *gitsource.UnverifiedError
			if err == nil || errors.As(err, &ue) {
				t.Errorf("keys %v: %v, want a key ring error", keys, err)
			}
		}
	})
}

// rewrite stores a copy of commit h changed by edit, keeping whatever
// signature edit leaves, as someone rewriting a signed commit would, and
// returns its hash.
func rewrite(t *testing.T, dir, h string, edit func(*object.Commit)) string {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CommitObject(plumbing.NewHash(h))
	if err != nil {
		t.Fatal(err)
	}
	forged := *c
	edit(&forged)
	obj := r.Storer.NewEncodedObject()
	if err := forged.Encode(obj); err != nil {
		t.Fatal(err)
	}
	out, err := r.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}
