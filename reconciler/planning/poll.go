package planning

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/authn"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalogimport"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/credentials"
)

// CatalogImages resolves catalog images' tags and pulls them; *oci.Puller
// is one.
type CatalogImages interface {
	oci.Resolver
	catalogimport.Images
}

// ImagesFunc builds the image client of one pass, with the Planner's
// registry credentials and mirrors.
type ImagesFunc func(keychain authn.Keychain, mirrors []oci.Mirror) (CatalogImages, error)

// maxPollBackoff bounds the wait before polling a failing catalog again.
const maxPollBackoff = 5 * time.Minute

// pollFailed counts a failed poll of st in its status and says when the
// next is due: from one second doubling with each failure in a row, up
// to the catalog's interval or maxPollBackoff. The count and the time are
// kept in the status, so that a restarted controller, or a new leader,
// neither polls a failing registry again at once nor starts the doubling
// over. The time is rounded up to a whole second, as the API server
// keeps it: no poll comes before the time the status announces.
func pollFailed(st *v1alpha1.CatalogPoll, interval time.Duration, now time.Time) time.Time {
	n := min(max(st.ConsecutiveFailures, 0), 20)
	st.ConsecutiveFailures = n + 1
	next := now.Add(min(time.Second<<n, interval, maxPollBackoff))
	if t := next.Truncate(time.Second); t.Before(next) {
		next = t.Add(time.Second)
	}
	st.NextAttemptTime = &metav1.Time{Time: next}
	return next
}

// poll resolves the tag of each catalog source olmops.yaml names whose
// interval passed: one registry HEAD. Only a digest not imported yet
// costs more: the import, proposed on olmops/import/<catalog> or, for an
// Automatic source, committed to the branch, which then gets planned in
// this pass. A failure leaves the catalog in Git as it was and is polled
// again after a backoff; it never ends the pass, whose planning does not
// depend on it.
func (r *Reconciler) poll(ctx context.Context, p *pass) *outcome {
	cfg, ok := r.configAt(ctx, p)
	if !ok {
		return nil // readConfig stalls the pass, if it gets there
	}
	prev := map[string]v1alpha1.CatalogPoll{}
	for _, c := range p.obj.Status.Catalogs {
		prev[c.Name] = c
	}
	var (
		polls     []v1alpha1.CatalogPoll
		failed    []string
		images    CatalogImages
		imagesErr error // a missing Secret fails every poll, not the pass
		now       = time.Now()
	)
	for _, c := range cfg.Spec.Catalogs {
		if c.Source == nil {
			continue
		}
		st, interval := prev[c.Name], c.Source.Interval()
		if st.Image != c.Source.Image {
			st = v1alpha1.CatalogPoll{Name: c.Name, Image: c.Source.Image}
		}
		if st.LastPollTime != nil && st.Error == "" && now.Before(st.LastPollTime.Add(interval)) {
			p.pollIn(st.LastPollTime.Add(interval).Sub(now))
			polls = append(polls, st)
			continue
		}
		if st.Error != "" && st.NextAttemptTime != nil && now.Before(st.NextAttemptTime.Time) {
			p.pollIn(st.NextAttemptTime.Sub(now))
			polls = append(polls, st)
			failed = append(failed, c.Name+": "+st.Error)
			continue
		}
		if images == nil && imagesErr == nil {
			images, imagesErr = r.imagesFor(ctx, p)
		}
		err := imagesErr
		if err == nil {
			err = r.pollOne(ctx, p, c, images, &st)
		}
		st.LastPollTime = &metav1.Time{Time: now}
		if err != nil {
			st.Error = v1alpha1.CutMessage(p.creds.Redact(err.Error()))
			wait := pollFailed(&st, interval, now).Sub(now)
			p.pollIn(wait)
			failed = append(failed, c.Name+": "+st.Error)
			logr.FromContextOrDiscard(ctx).Info("catalog poll failed", "catalog", c.Name, "failures", st.ConsecutiveFailures, "retryIn", wait, "error", st.Error)
		} else {
			st.Error, st.ConsecutiveFailures, st.NextAttemptTime = "", 0, nil
			p.pollIn(interval)
		}
		polls = append(polls, st)
	}
	p.obj.Status.Catalogs = polls
	r.recordPolls(p, failed)
	return nil
}

// pollOne polls one catalog and imports a digest not imported yet.
func (r *Reconciler) pollOne(ctx context.Context, p *pass, c v1alpha1.Catalog, images CatalogImages, st *v1alpha1.CatalogPoll) error {
	d, err := images.Resolve(ctx, c.Source.Image)
	if err != nil {
		return fmt.Errorf("poll %s: %w (the catalog in Git stays as it is)", c.Source.Image, err)
	}
	st.Digest = d.DigestStr()
	if st.Digest == st.ImportedDigest {
		return nil
	}
	automatic := c.Source.Approval == v1alpha1.ApprovalAutomatic
	sum, err := catalogimport.Run(ctx, catalogimport.Options{
		Image: c.Source.Image, Into: filepath.FromSlash(c.Path), Packages: c.Source.Packages, Images: images,
		Propose: &catalogimport.Propose{Repo: p.repo, Forge: r.forgeFunc(ctx, p.obj, p.creds), Automatic: automatic, Branch: p.branch},
	})
	if err != nil {
		return fmt.Errorf("import %s into %s: %w", c.Source.Image, c.Path, err)
	}
	// The digest imported is the one the pull found, which a push may
	// have moved since the HEAD.
	st.Digest, st.ImportedDigest, st.Proposal = sum.Digest, sum.Digest, ""
	if sum.Proposal != nil && sum.Proposal.State == gitsource.ProposalOpen {
		st.Proposal = cmp.Or(sum.Proposal.URL, sum.Proposal.Head)
	}
	switch {
	case !sum.Changed:
	case automatic:
		r.emit(p.obj, corev1.EventTypeNormal, "CatalogImported", fmt.Sprintf("%s: committed %s", c.Name, sum.Title()))
		// The branch moved: plan what it holds now.
		if h, err := p.repo.RemoteRef(ctx, plumbing.NewBranchReferenceName(p.branch).String()); err == nil {
			p.head = h
			p.obj.Status.LastFetchedCommit = h.String()
		}
	default:
		r.emit(p.obj, corev1.EventTypeNormal, "CatalogImportProposed", fmt.Sprintf("%s: %s: %s", c.Name, sum.Title(), st.Proposal))
	}
	return nil
}

// configAt reads olmops.yaml at the fetched head, with defaults.
func (r *Reconciler) configAt(ctx context.Context, p *pass) (*v1alpha1.RepositoryConfig, bool) {
	snap, err := p.repo.Snapshot(ctx, p.head)
	if err != nil {
		return nil, false
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), p.branch)
	return cfg, err == nil
}

// imagesFor builds the pass's image client from spec.registry: its
// dockerconfigjson Secret (anonymous without one: the controller's own
// credentials are never lent to a Planner) and its mirrors.
func (r *Reconciler) imagesFor(ctx context.Context, p *pass) (CatalogImages, error) {
	keychain := authn.NewMultiKeychain()
	var (
		mirrors []oci.Mirror
		secret  []byte
	)
	if reg := p.obj.Spec.Registry; reg != nil {
		if reg.SecretRef != nil {
			data, err := credentials.Data(ctx, r.APIReader, p.obj.Namespace, reg.SecretRef.Name)
			if err != nil {
				return nil, err
			}
			secret = data[corev1.DockerConfigJsonKey]
			p.creds.Keep(string(secret))
			if keychain, err = oci.KeychainFromDockerConfigJSON(secret); err != nil {
				return nil, fmt.Errorf("%w: secret %s: %w", errConfig, reg.SecretRef.Name, err)
			}
		}
		for _, m := range reg.Mirrors {
			mirrors = append(mirrors, oci.Mirror{Source: m.Source, Mirrors: m.Mirrors, NeverContactSource: m.NeverContactSource})
		}
	}
	if r.NewImages == nil {
		return nil, errors.New("catalog sources: no image client configured")
	}
	// Kept between passes while the credentials and mirrors stay: the
	// client keeps its registry tokens, so that a poll is one HEAD, not a
	// ping and a token exchange before it.
	key := fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "%q %+v", secret, mirrors)))
	r.clientsMu.Lock()
	defer r.clientsMu.Unlock()
	if c, ok := r.clients[p.req]; ok && c.key == key {
		return c.images, nil
	}
	images, err := r.NewImages(keychain, mirrors)
	if err != nil {
		return nil, err
	}
	if r.clients == nil {
		r.clients = map[ctrl.Request]imageClient{}
	}
	r.clients[p.req] = imageClient{key: key, images: images}
	return images, nil
}

// imageClient is a Planner's image client and what it was built from.
type imageClient struct {
	key    string
	images CatalogImages
}

// recordPolls sets CatalogsPolled: False naming each catalog whose poll
// or import failed, True when every one succeeded; none without sources.
func (r *Reconciler) recordPolls(p *pass, failed []string) {
	obj := p.obj
	if len(obj.Status.Catalogs) == 0 {
		meta.RemoveStatusCondition(&obj.Status.Conditions, v1alpha1.CatalogsPolledCondition)
		return
	}
	if len(failed) == 0 {
		setCondition(obj, v1alpha1.CatalogsPolledCondition, metav1.ConditionTrue, v1alpha1.SucceededReason,
			fmt.Sprintf("%d catalog sources polled", len(obj.Status.Catalogs)))
		return
	}
	msg := strings.Join(failed, "; ")
	was := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.CatalogsPolledCondition)
	setCondition(obj, v1alpha1.CatalogsPolledCondition, metav1.ConditionFalse, v1alpha1.PollFailedReason, msg)
	if was == nil || was.Message != v1alpha1.CutMessage(msg) {
		r.emit(obj, corev1.EventTypeWarning, v1alpha1.PollFailedReason, msg)
	}
}

// pollIn notes that a catalog wants polling in d.
func (p *pass) pollIn(d time.Duration) {
	if d > 0 && (p.nextPoll == 0 || d < p.nextPoll) {
		p.nextPoll = d
	}
}
