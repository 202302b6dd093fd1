package reconciler

import (
	"cmp"
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/credentials"
)

// refusal is a head the controller will not apply, to be told on the
// commit itself as well as in the Repository's conditions.
type refusal struct {
	commit plumbing.Hash
	reason string
	msg    string
	// trusted says the head's own olmops.yaml may say where statuses go:
	// false for a head whose signature did not verify, whose content
	// anyone could have written.
	trusted bool
}

// reportRefused posts a failure status, olmops/<cluster>/head, on a head
// the controller refused. Where it goes is spec.forge, else the forge of
// the olmops.yaml the controller trusts: the head's when it was verified
// (or verification is off), else that of the last commit it applied. With
// neither, nothing is posted: an unverified commit must not choose where
// olmops writes, nor have it push notes to a repository it never named.
// A failure to post is logged and evented; the refusal stands either way.
func (r *RepositoryReconciler) reportRefused(ctx context.Context, obj *v1alpha1.Repository, src *gitsource.Repo, creds *credentials.Set, ref refusal) {
	log := logr.FromContextOrDiscard(ctx)
	cfg, ok := r.trustedConfig(ctx, obj, src, ref)
	if !ok {
		log.V(1).Info("refused head: no trusted forge to post its status on", "commit", ref.commit.String())
		return
	}
	forge, err := r.Sources.Forge(ctx, r.APIReader, obj, src, cfg, creds)
	if err != nil || forge == nil {
		log.Error(err, "refused head: no forge for its status", "commit", ref.commit.String())
		return
	}
	st := gitsource.Status{Context: commitstatus.HeadContext(obj.Spec.Cluster), State: gitsource.StatusFailure,
		Description: commitstatus.Refused(ref.reason, creds.Redact(ref.msg))}
	t := Target{ID: fmt.Sprintf("%s/%s", obj.Namespace, obj.Name), statuses: forge,
		Event: func(e Event) { r.event(obj, e, creds.Redact) }}
	r.Syncer.postStatus(ctx, t, ref.commit.String(), st)
}

// trustedConfig is the olmops.yaml whose forge a refused head's status
// goes to, and whether there is one.
func (r *RepositoryReconciler) trustedConfig(ctx context.Context, obj *v1alpha1.Repository, src *gitsource.Repo, ref refusal) (*v1alpha1.RepositoryConfig, bool) {
	if obj.Spec.Forge != nil {
		return &v1alpha1.RepositoryConfig{}, true
	}
	at := ref.commit
	if !ref.trusted {
		if obj.Status.LastAppliedCommit == "" {
			return nil, false
		}
		at = plumbing.NewHash(obj.Status.LastAppliedCommit)
	}
	snap, err := src.Snapshot(ctx, at)
	if err != nil {
		return nil, false
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), cmp.Or(obj.Spec.Branch, "main"))
	if err != nil {
		return nil, false
	}
	return cfg, true
}
