package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
)

// watcher prints what changed since its last look: the Repositories'
// Ready conditions and subscriptions, and the commit statuses in the git
// notes of the server's repository.
type watcher struct {
	d        *demo
	mu       sync.Mutex        // one look at a time: the ticker's or a flush
	lines    map[string]string // what was last printed, by what it is about
	notes    map[string]string // commit → the note object last read for it
	subjects map[string]string // commit → its subject
}

func (d *demo) startWatch(ctx context.Context) error {
	d.out.line("without GitHub, commit statuses are git notes: git notes --ref=olmops show <commit>")
	d.out.line("from here on, lines starting with a time are changes as they happen:")
	w := &watcher{d: d, lines: map[string]string{}, notes: map[string]string{}, subjects: map[string]string{}}
	d.watch = w
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			w.look(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	d.stopWatch = func() { cancel(); <-done }
	d.onCleanup(func() error { d.stopWatch(); return nil })
	return nil
}

// look prints what changed since the last look. A step that waited for
// a change calls it before it goes on, so that the change is printed
// before what the step says next.
func (w *watcher) look(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pollRepositories(ctx)
	w.pollNotes(ctx)
}

// changed prints line unless it is what was last printed about key.
func (w *watcher) changed(key, line string) {
	if w.lines[key] == line {
		return
	}
	w.lines[key] = line
	w.d.out.event("%s", line)
}

// pollRepositories prints each Repository's Ready condition and
// subscriptions that changed; a failed read is tried again next tick.
func (w *watcher) pollRepositories(ctx context.Context) {
	for _, c := range w.d.clusters {
		var repo v1alpha1.Repository
		if err := c.Client.Get(ctx, c.Repo, &repo); err != nil {
			continue
		}
		if r := meta.FindStatusCondition(repo.Status.Conditions, v1alpha1.ReadyCondition); r != nil {
			w.changed(c.Name+" Ready", fmt.Sprintf("%-9s  Ready=%s  %s: %s", c.Name, r.Status, r.Reason, r.Message))
		}
		for _, st := range repo.Status.Subscriptions {
			w.changed(c.Name+" "+st.Namespace+"/"+st.Name, fmt.Sprintf("%-9s  %s", c.Name, subscriptionLine(st)))
		}
	}
}

// subscriptionLine is one subscription's state, e.g.
// "etcd-system/acme-db  Installed  acme-db.v1.1.0  healthy".
func subscriptionLine(st v1alpha1.SubscriptionStatus) string {
	parts := []string{fmt.Sprintf("%-20s  %-9s", st.Namespace+"/"+st.Name, st.Phase)}
	if st.Phase == v1alpha1.SubscriptionApplying {
		parts = append(parts, fmt.Sprintf("hop %d/%d → %s", st.Hop, st.Hops, st.TargetBundle))
	} else {
		parts = append(parts, cmp.Or(st.InstalledBundle, "(nothing installed)"))
	}
	if st.Phase == v1alpha1.SubscriptionInstalled {
		parts = append(parts, map[bool]string{true: "healthy", false: "unhealthy"}[st.Healthy])
	}
	if st.Upgradeable != "" {
		parts = append(parts, "Upgradeable="+string(st.Upgradeable))
	}
	if st.Message != "" {
		parts = append(parts, st.Message)
	}
	return strings.Join(parts, "  ")
}

// pollNotes prints the commit statuses that are new or changed since the
// last look; only notes whose object changed are read again.
func (w *watcher) pollNotes(ctx context.Context) {
	list, err := w.d.git.InBare(ctx, "notes", "--ref=olmops", "list")
	if err != nil {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		object, commit, ok := strings.Cut(line, " ")
		if !ok || w.notes[commit] == object {
			continue
		}
		n, err := w.d.git.ReadNote(ctx, commit)
		if err != nil {
			continue
		}
		w.notes[commit] = object
		on := w.subject(ctx, commit)
		for _, s := range n.Statuses {
			w.changed(commit+" "+s.Context, fmt.Sprintf("%-36s  %-7s  %s  on %s", s.Context, s.State, s.Description, on))
		}
	}
}

// subject names a commit by its short hash and subject, which say what
// it carried: a plan, a merge.
func (w *watcher) subject(ctx context.Context, commit string) string {
	if s, ok := w.subjects[commit]; ok {
		return s
	}
	out, err := w.d.git.InBare(ctx, "log", "-1", "--format=%h %s", commit)
	if err != nil {
		return commit[:7]
	}
	sha, subject, _ := strings.Cut(strings.TrimSpace(out), " ")
	w.subjects[commit] = fmt.Sprintf("%s %q", sha, subject)
	return w.subjects[commit]
}
