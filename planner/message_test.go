package planner

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// planCommits counts the Automatic commits for cluster in a
// `git log --format=%s` output.
func planCommits(log, cluster string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "olmops: plan "+cluster+": ") {
			n++
		}
	}
	return n
}

// Commit messages say what changed: the Automatic commit's subject names
// the plan and the versions, the proposal's commit lists each plan it
// carries, and a Refresh says what moved rather than "manifests changed".
func TestPlanCommitMessages(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)
	f.plan(t)
	subjects := gittest.Git(t, f.dir, "log", "--format=%s", "main")
	if want := "olmops: plan staging: etcd-system/etcd: install etcd 0.10.0\n"; !strings.Contains(subjects, want) {
		t.Errorf("main lacks the subject %q:\n%s", want, subjects)
	}
	// acme-db needs etcd, which waits for approval: it rides in etcd's
	// proposal, whose commit lists both.
	msg := gittest.Git(t, f.dir, "log", "-1", "--format=%B", etcdBranch)
	for _, want := range []string{"\n- etcd-system/etcd: install etcd 0.9.2\n", "\n- etcd-system/acme-db: install acme-db 1.1.0\n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the proposal's commit does not list %q:\n%s", strings.TrimSpace(want), msg)
		}
	}

	// Staging's etcd takes a new image for its bundle: same manifests.
	// prod-east follows stable, where nothing changed: it stays quiet.
	proposal := gittest.Git(t, f.dir, "rev-parse", etcdBranch)
	const cat = "catalogs/operatorhub/etcd/catalog.yaml"
	files[cat] = []byte(strings.Replace(string(files[cat]), "image: quay.io/olmops-examples/etcd-operator-bundle:v0.10.0", "image: quay.io/olmops-examples/etcd-operator-bundle@sha256:"+strings.Repeat("3", 64), 1))
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{cat: files[cat]}, Message: "catalog: etcd 0.10.0 rebuilt"})
	f.plan(t)
	subject := gittest.Git(t, f.dir, "log", "-1", "--format=%s", "main")
	if !strings.HasPrefix(subject, "olmops: plan staging: etcd-system/etcd: same manifests; changed: bundle image") || strings.Contains(subject, "manifests changed") {
		t.Errorf("refresh subject %q", subject)
	}
	if n := planCommits(gittest.Git(t, f.dir, "log", "--format=%s", "main"), "prod-east"); n != 0 {
		t.Errorf("prod-east committed %d times, want none: its plans wait in the proposal, and an edit off its channel is no change", n)
	}
	if now := gittest.Git(t, f.dir, "rev-parse", etcdBranch); now != proposal {
		t.Errorf("prod-east's proposal moved from %s to %s on an edit off its channel", proposal, now)
	}
}
