// Command demo is make demo: the whole olmops loop on one machine, with no
// cluster and no GitHub. It starts a control plane per cluster (the
// kube-apiserver and etcd the tests use), serves the example desired-state
// repository from a local git server, plans it, runs the controller,
// approves a Manual plan with a git merge and prints what was applied and
// the statuses as they change. Everything it starts is stopped and removed
// on exit, also on failure, timeout or Ctrl-C.
//
//	KUBEBUILDER_ASSETS=... go run ./test/demo --olmops bin/olmops
//
// What it starts and runs is test/harness, which the end-to-end tests
// share; this program only narrates.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/olmops/olmops/test/harness"
)

// clusterNames are the clusters of examples/olmops.yaml. Each gets its own
// control plane and controller, as real clusters do: both install etcd
// into etcd-system, so sharing one API server would have them overwrite
// each other's objects.
var clusterNames = []string{"prod-east", "staging"}

// Indexes of demo.clusters, which follows clusterNames.
const (
	prodEast = 0
	staging  = 1
)

// demo is one run: what it was given, what it started, and how to stop it.
type demo struct {
	harness.Paths
	tmp string // everything the demo writes
	out *printer

	git       *harness.Git
	clusters  []*harness.Cluster
	watch     *watcher
	stopWatch func()
	cleanups  []func() error
}

// step is one announced part of the demo.
type step struct {
	title string
	run   func(context.Context) error
}

// errInterrupted ends the demo on Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

func main() {
	olmops := flag.String("olmops", "bin/olmops", "the olmops binary to run")
	root := flag.String("root", ".", "the olmops repository: examples/ and the CRDs under config/")
	timeout := flag.Duration("timeout", 3*time.Minute, "give up after this long")
	flag.Parse()
	// The demo's own client and envtest log through controller-runtime,
	// which complains on stderr when no logger is set; their errors are
	// returned, and reported, anyway.
	log.SetLogger(logr.Discard())
	stderr := os.Stderr // startGit redirects os.Stderr
	ctx, stopSignals := lifetime(*timeout)
	out := newPrinter(os.Stdout)
	d, err := newDemo(*olmops, *root, out)
	if err == nil {
		err = d.run(ctx)
		stopSignals() // a second Ctrl-C during cleanup ends the demo at once
		err = errors.Join(err, d.cleanup())
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w: %w", cause, err)
		}
		fmt.Fprintf(stderr, "\ndemo failed after %s: %v\n", out.elapsed(), err)
		os.Exit(1)
	}
	out.printf("\nDemo done in %s.\n", out.elapsed())
}

// lifetime is the demo's context: it ends after timeout or on Ctrl-C, with
// a cause that says which, since whatever was waiting then only says
// "context canceled". stop stops the clock and catching the signals.
func lifetime(timeout time.Duration) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	timer := time.AfterFunc(timeout, func() { cancel(fmt.Errorf("timed out after %s", timeout)) })
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if s, ok := <-sigs; ok {
			cancel(fmt.Errorf("%w (%v)", errInterrupted, s))
		}
	}()
	return ctx, func() { timer.Stop(); signal.Stop(sigs); close(sigs) }
}

// newDemo checks what the demo needs before it starts anything: the
// control plane's binaries, the olmops binary, and the repository's
// examples/ and CRDs under root.
func newDemo(olmops, root string, out *printer) (*demo, error) {
	paths, err := harness.Find(olmops, root)
	if err != nil {
		return nil, fmt.Errorf("%w (run make demo, or run it from the repository root after make build and make envtest)", err)
	}
	return &demo{Paths: paths, out: out}, nil
}

func (d *demo) run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "olmops-demo-")
	if err != nil {
		return err
	}
	d.tmp = tmp
	d.onCleanup(func() error { return os.RemoveAll(tmp) })
	d.out.printf("Everything the demo writes goes to $DEMO=%s and is removed at the end.\n", tmp)
	d.out.tmp = tmp
	steps := []step{
		{"Start a control plane per cluster: kube-apiserver + etcd, the binaries the tests use", d.startClusters},
		{"Serve a git repository on 127.0.0.1 and push examples/ to it, as a user would", d.startGit},
		{"Validate the catalogs and plan: Automatic plans go to main, Manual ones wait as branches", d.plan},
		{"Run the controller, olmops serve, in each cluster", d.startControllers},
		{"Point each controller at the repository: a Secret and a Repository", d.createRepositories},
		{"Play the kubelet", d.startKubelet},
		{"Watch Repository statuses and commit statuses (git notes on refs/notes/olmops)", d.startWatch},
		{"Wait for the Automatic plans; etcd on prod-east waits for approval", d.waitAutomatic},
		{"Approve etcd on prod-east with a git merge", d.approve},
		{"Plan again: the next upgrade is proposed", d.planAgain},
		{"What was applied", d.show},
	}
	for i, s := range steps {
		d.out.heading(i+1, s.title)
		if err := s.run(ctx); err != nil {
			logs := ""
			if !errors.Is(context.Cause(ctx), errInterrupted) {
				logs = d.serveLogs()
			}
			return fmt.Errorf("step %d, %s: %w%s", i+1, s.title, err, logs)
		}
	}
	return nil
}

// onCleanup registers f to run at cleanup, after everything registered later.
func (d *demo) onCleanup(f func() error) { d.cleanups = append(d.cleanups, f) }

func (d *demo) cleanup() error {
	d.out.printf("\n== Clean up ==\n")
	var errs []error
	for i := len(d.cleanups) - 1; i >= 0; i-- {
		errs = append(errs, d.cleanups[i]())
	}
	err := errors.Join(errs...)
	if err == nil {
		d.out.line("stopped the controllers, the control planes and the git server; removed $DEMO")
	}
	return err
}

// serveLogs is the end of each controller's log, for a failure.
func (d *demo) serveLogs() string {
	var b strings.Builder
	for _, c := range d.clusters {
		if c.Serve != nil {
			fmt.Fprintf(&b, "\n%s: %s", c.Name, c.Serve.Tail(15))
		}
	}
	return b.String()
}
