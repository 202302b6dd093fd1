package main

import (
	"cmp"
	"context"
	"encoding/json"
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

// note is a commit's note on refs/notes/olmops, as the git-only forge
// writes it.
type note struct {
	Statuses []struct {
		Context     string `json:"context"`
		State       string `json:"state"`
		Description string `json:"description"`
	} `json:"statuses"`
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
		if err := c.client.Get(ctx, c.repo, &repo); err != nil {
			continue
		}
		if r := meta.FindStatusCondition(repo.Status.Conditions, v1alpha1.ReadyCondition); r != nil {
			w.changed(c.name+" Ready", fmt.Sprintf("%-9s  Ready=%s  %s: %s", c.name, r.Status, r.Reason, r.Message))
		}
		for _, st := range repo.Status.Subscriptions {
			w.changed(c.name+" "+st.Namespace+"/"+st.Name, fmt.Sprintf("%-9s  %s", c.name, subscriptionLine(st)))
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
	list, err := w.d.git.bareGit(ctx, "notes", "--ref=olmops", "list")
	if err != nil {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		object, commit, ok := strings.Cut(line, " ")
		if !ok || w.notes[commit] == object {
			continue
		}
		n, err := w.d.readNote(ctx, commit)
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
	out, err := w.d.git.bareGit(ctx, "log", "-1", "--format=%h %s", commit)
	if err != nil {
		return commit[:7]
	}
	sha, subject, _ := strings.Cut(strings.TrimSpace(out), " ")
	w.subjects[commit] = fmt.Sprintf("%s %q", sha, subject)
	return w.subjects[commit]
}

// readNote reads commit's statuses from the server's repository.
func (d *demo) readNote(ctx context.Context, commit string) (note, error) {
	var n note
	out, err := d.git.bareGit(ctx, "notes", "--ref=olmops", "show", commit)
	if err != nil {
		return n, err
	}
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		return n, fmt.Errorf("the note of %s: %w", commit, err)
	}
	return n, nil
}

// waitStatus waits until commit has status name in state.
func (d *demo) waitStatus(ctx context.Context, commit, name, state string) error {
	what := fmt.Sprintf("status %s %s on %s", name, state, commit[:12])
	return poll(ctx, what, 60*time.Second, func(ctx context.Context) (bool, string, error) {
		n, err := d.readNote(ctx, commit)
		if err != nil {
			return false, err.Error(), nil // no note yet
		}
		for _, s := range n.Statuses {
			if s.Context == name {
				return s.State == state, s.State + " " + s.Description, nil
			}
		}
		return false, "no such status yet", nil
	})
}

// poll calls cond every 100ms until it holds, fails, or timeout passes;
// its string says what it saw, for the error.
func poll(ctx context.Context, what string, timeout time.Duration, cond func(context.Context) (bool, string, error)) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, saw, err := cond(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", what, err)
		case ok:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%s: still not so after %s; last saw %s", what, timeout, saw)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w; last saw %s", what, ctx.Err(), saw)
		case <-tick.C:
		}
	}
}
