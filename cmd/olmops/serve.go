//go:build !olmops_cli

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/olmops/olmops/reconciler"
)

type serveOptions struct {
	streams
	reconciler.Options
	kube              kubeFlags
	WebhookSecretFile string
	LogLevel          int
	LogFormat         string
}

func newServeCmd(s streams) *cobra.Command {
	opts := &serveOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the in-cluster controller that applies merged plans",
		Long: `Serve runs the olmops controller: it reconciles Repository objects
(olmops.io/v1alpha1). For each, it fetches the branch on spec.interval (and
at once on a signed push to the webhook), applies the merged plans of
spec.cluster with server-side apply, waits for them to become healthy,
holds upgrades the installed operator says Upgradeable=False to, prunes
what left the plans, and posts commit statuses on the commits that carried
the plans (docs/statuses.md).

It also reconciles Planner objects: for each, on spec.interval and on a
signed push, it runs what olmops plan --push runs for the repository's
clusters, committing Automatic plans and proposing Manual ones
(docs/planning.md).

It serves Prometheus metrics, /healthz and /readyz, and the push webhook
(` + "`/hooks/push`" + `, GitHub, Gitea or GitLab signatures; refused without a
secret). Several deployments share Repositories and Planners out with
--watch-label-selector; replicas of one take turns with --leader-elect.`,
		Example: `  olmops serve --leader-elect --webhook-secret-file /etc/olmops/webhook/secret
  olmops serve --kubeconfig ~/.kube/config --watch-label-selector 'sharding.olmops.io/key in (shard1)'`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return serveRun(cmd, opts) },
	}
	f := cmd.Flags()
	opts.kube.add(cmd, false)
	f.StringVar(&opts.MetricsAddr, "metrics-bind-address", ":8080", `address of /metrics; "0" turns it off`)
	f.StringVar(&opts.ProbeAddr, "health-probe-bind-address", ":8081", `address of /healthz and /readyz; "0" turns them off`)
	f.StringVar(&opts.WebhookAddr, "webhook-bind-address", ":9292", `address of the push webhook; "0" turns it off`)
	f.StringVar(&opts.WebhookSecretFile, "webhook-secret-file", "", "file holding the push webhook's HMAC secret; without one the webhook is off")
	f.BoolVar(&opts.LeaderElection, "leader-elect", false, "take a lease so that one replica of this shard works at a time")
	f.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the lease (default: the one olmops runs in)")
	f.StringVar(&opts.WatchLabelSelector, "watch-label-selector", "", "reconcile only Repositories and Planners with these labels (sharding)")
	f.StringVar(&opts.WatchNamespace, "watch-namespace", "", "reconcile only Repositories and Planners of this namespace (default: all)")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "where repository clones are kept (default: the user cache folder)")
	opts.MaxFetchSize = defaultMaxFetchSize
	f.Var(byteSizeFlag{&opts.MaxFetchSize}, "max-fetch-size", "refuse (Stalled, FetchTooLarge) a repository whose clone or fetch (HTTP(S), SSH, git://) reads more (a quantity: 512Mi, 2Gi; 0 means no cap)")
	f.IntVar(&opts.Concurrency, "concurrent", 4, "Repositories, and Planners, reconciled at a time")
	f.DurationVar(&opts.Recheck, "recheck", reconciler.DefaultRecheck, "how soon a held upgrade or an unhealthy install is looked at again")
	f.DurationVar(&opts.HealthPoll, "health-poll", 0, "pause between two health checks while waiting (default 500ms)")
	f.IntVarP(&opts.LogLevel, "v", "v", 0, "log verbosity: 0 info, 1 debug, 2 trace")
	f.StringVar(&opts.LogFormat, "log-format", "json", "log format: json or text")
	return cmd
}

// defaultMaxFetchSize keeps one fetch well inside what a controller pod
// can hold, and far above a repository of plans and catalogs.
const defaultMaxFetchSize = 512 << 20

// byteSizeFlag is a flag of bytes written as a Kubernetes quantity.
type byteSizeFlag struct{ n *int64 }

func (b byteSizeFlag) String() string {
	if b.n == nil {
		return "0"
	}
	return resource.NewQuantity(*b.n, resource.BinarySI).String()
}

func (b byteSizeFlag) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return err
	}
	if q.Sign() < 0 {
		return errors.New("a size cannot be negative")
	}
	*b.n = q.Value()
	return nil
}

func (b byteSizeFlag) Type() string { return "size" }

func serveRun(cmd *cobra.Command, opts *serveOptions) error {
	if err := oneOf("log-format", opts.LogFormat, "json", "text"); err != nil {
		return err
	}
	if _, err := labels.Parse(opts.WatchLabelSelector); err != nil {
		return usageErrorf("--watch-label-selector %q: %v", opts.WatchLabelSelector, err)
	}
	log := newLogger(opts.Err, opts.LogFormat, opts.LogLevel)
	ctrl.SetLogger(log)
	klog.SetLogger(log)
	ctx := logr.NewContext(cmd.Context(), log)
	if err := readWebhookSecret(log, &opts.Options, opts.WebhookSecretFile); err != nil {
		return err
	}
	if opts.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return usageErrorf("no --cache-dir and no user cache folder: %v", err)
		}
		opts.CacheDir = filepath.Join(dir, "olmops", "serve")
	}
	cfg, err := opts.kube.restConfig()
	if err != nil {
		return err
	}
	opts.Version = olmopsVersion()
	mgr, err := reconciler.NewManager(cfg, opts.Options)
	if err != nil {
		return err
	}
	log.Info("starting", "version", version, "shard", opts.WatchLabelSelector, "webhook", opts.WebhookAddr != "0")
	return mgr.Start(ctx)
}

// readWebhookSecret turns the webhook on when the secret file exists and
// holds a secret. A missing file (the optional Secret volume of
// config/manager, before anyone created the Secret) turns it off: the
// controller still fetches on its interval.
func readWebhookSecret(log logr.Logger, opts *reconciler.Options, file string) error {
	var secret []byte
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("webhook secret: %w", err)
		}
		secret = bytes.TrimSpace(data)
	}
	if len(secret) == 0 {
		if opts.WebhookAddr != "0" {
			log.Info("push webhook off: no secret", "file", file)
		}
		opts.WebhookAddr = "0"
		return nil
	}
	opts.WebhookSecret = secret
	return nil
}

// newLogger logs through slog: JSON for a cluster's log pipeline, text
// for a person. logr's V(n) maps to slog levels below Info.
func newLogger(w interface{ Write([]byte) (int, error) }, format string, verbosity int) logr.Logger {
	hopts := &slog.HandlerOptions{Level: slog.Level(-verbosity)}
	var h slog.Handler = slog.NewJSONHandler(w, hopts)
	if format == "text" {
		h = slog.NewTextHandler(w, hopts)
	}
	return logr.FromSlogHandler(h)
}
