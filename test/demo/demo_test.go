package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/api/v1alpha1"
)

func TestSubscriptionLine(t *testing.T) {
	tests := []struct {
		name string
		st   v1alpha1.SubscriptionStatus
		want string
	}{
		{"installed", v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "etcd", Phase: v1alpha1.SubscriptionInstalled,
			InstalledBundle: "etcdoperator.v0.9.2", Healthy: true, Upgradeable: "True"},
			"ns/etcd               Installed  etcdoperator.v0.9.2  healthy  Upgradeable=True"},
		{"applying shows the hop", v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "etcd", Phase: v1alpha1.SubscriptionApplying,
			Hop: 1, Hops: 2, TargetBundle: "etcdoperator.v0.9.4"},
			"ns/etcd               Applying   hop 1/2 → etcdoperator.v0.9.4"},
		{"failed says why", v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "etcd", Phase: v1alpha1.SubscriptionFailed, Message: "no Widget kind"},
			"ns/etcd               Failed     (nothing installed)  no Widget kind"},
		{"unhealthy", v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "db", Phase: v1alpha1.SubscriptionInstalled, InstalledBundle: "db.v1"},
			"ns/db                 Installed  db.v1  unhealthy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subscriptionLine(tt.st); got != tt.want {
				t.Errorf("subscriptionLine =\n%q, want\n%q", got, tt.want)
			}
		})
	}
}

func TestPrinterCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plain", []string{"push", "origin", "main"}, "   $ git push origin main\n"},
		{"spaces are quoted", []string{"commit", "-m", "approve etcd"}, "   $ git commit -m 'approve etcd'\n"},
		{"quotes are escaped", []string{"-m", "it's"}, `   $ git -m 'it'\''s'` + "\n"},
		{"the temporary folder is $DEMO", []string{"clone", "/tmp/x/fleet"}, "   $ git clone $DEMO/fleet\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := newPrinter(&buf)
			p.tmp = "/tmp/x"
			p.command("git", tt.args...)
			if buf.String() != tt.want {
				t.Errorf("command printed %q, want %q", buf.String(), tt.want)
			}
		})
	}
}

// TestDemo runs the whole demo, as make demo does, so that it cannot rot
// unnoticed. It needs the control plane's binaries (make test sets
// KUBEBUILDER_ASSETS) and git, and takes about 15 s.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole demo takes about 15 s")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: run make test, or make envtest and export what it prints")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	olmops := filepath.Join(t.TempDir(), "olmops")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", olmops, "./cmd/olmops")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build olmops: %v\n%s", err, out)
	}
	var out bytes.Buffer
	d, err := newDemo(olmops, filepath.Join("..", ".."), newPrinter(&out))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if err := errors.Join(d.run(ctx), d.cleanup()); err != nil {
		t.Fatalf("%v\noutput:\n%s", err, out.String())
	}
	for _, want := range []string{
		"proposed on branch olmops/prod-east/etcd-system/etcd",
		"etcdoperator.v0.9.2 installed · healthy",
		"merge → applied, healthy and reported in",
		"etcd 0.9.2 → 0.9.4 (prod-east/etcd-system), proposed on branch",
		"live: Deployment etcd-system/etcd-operator  1/1 available",
		"olmops_plans_applied_total{",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(d.tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("$DEMO (%s) is left behind: %v", d.tmp, err)
	}
}
