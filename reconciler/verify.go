package reconciler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/credentials"
)

// verifyKeys reads the key rings of spec.verify's Secret: every key
// ending in .asc (OpenPGP) or .sshpub (SSH), in name order.
func verifyKeys(ctx context.Context, reader client.Reader, obj *v1alpha1.Repository) ([]gitsource.KeyRing, error) {
	data, err := credentials.Data(ctx, reader, obj.Namespace, obj.Spec.Verify.SecretRef.Name)
	if err != nil {
		return nil, err
	}
	var keys []gitsource.KeyRing
	for name, v := range data {
		switch {
		case strings.HasSuffix(name, v1alpha1.VerifyKeySuffix):
			keys = append(keys, gitsource.KeyRing{Name: name, Armored: string(v), Format: gitsource.OpenPGP})
		case strings.HasSuffix(name, v1alpha1.VerifySSHKeySuffix):
			keys = append(keys, gitsource.KeyRing{Name: name, Armored: string(v), Format: gitsource.SSH})
		}
	}
	slices.SortFunc(keys, func(a, b gitsource.KeyRing) int { return strings.Compare(a.Name, b.Name) })
	return keys, nil
}

// verify checks the head commit against spec.verify, when it is set.
// stall is what only a new commit, Secret or spec can clear: an
// unverified commit, or no key that parses. err is a Secret or commit
// that could not be read, to be retried.
func (r *RepositoryReconciler) verify(ctx context.Context, obj *v1alpha1.Repository, src *gitsource.Repo, commit plumbing.Hash) (stall, err error) {
	if obj.Spec.Verify == nil {
		return nil, nil
	}
	keys, err := verifyKeys(ctx, r.APIReader, obj)
	if err != nil {
		return nil, err
	}
	// A Secret without a usable key is refused, never taken as nothing
	// to check against.
	if err := gitsource.ParseKeyRings(keys); err != nil {
		return fmt.Errorf("commit %s is not applied: secret %s (keys ending in %s or %s): %w",
			commit, obj.Spec.Verify.SecretRef.Name, v1alpha1.VerifyKeySuffix, v1alpha1.VerifySSHKeySuffix, err), nil
	}
	s, err := src.VerifyCommit(ctx, commit, keys)
	var ue *gitsource.UnverifiedError
	if errors.As(err, &ue) {
		return err, nil
	}
	if err != nil {
		return nil, err
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("head commit verified", "commit", commit.String(), "signer", s.Identity, "key", s.KeyID, "keyRing", s.KeyRing)
	return nil, nil
}
