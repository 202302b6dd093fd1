package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

type resolveOptions struct {
	streams
	Output        string
	Catalogs      []string
	Package       string
	Channels      []string
	Version       string
	Installed     string
	Policy        string
	SelfCertified bool
	Subscriptions []string
	Kubernetes    string
	OpenShift     string
}

func newResolveCmd(s streams) *cobra.Command {
	opts := &resolveOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "resolve --catalog DIR[:PRIORITY]... (--package P | --subscriptions FILE...)",
		Short: "Resolve what a subscription installs or upgrades to",
		Long: `Resolve answers what OLM would install or upgrade to, with the dependencies
it would propose as new subscriptions.

Each --catalog DIR is one file-based catalog named after the directory's base
name (a Subscription's spec.source); PRIORITY (default 0) prefers it over
catalogs of lower priority. As in OLM, a catalog that opm validate rejects is
still resolved against, and its problems are shown as warnings; a catalog
that cannot be read or decoded at all stops the command.

With --package, resolve one subscription: --channel, --version (an OLM v1
range), --installed BUNDLE[@VERSION] (@VERSION for a bundle no catalog lists
any more), --policy and --self-certified say what it asks for.

With --subscriptions, resolve Subscription and ClusterExtension files (or
directories of them) together, one resolution per namespace. A
Subscription's spec.source names its catalog and status.installedCSV what is
installed; a ClusterExtension's status.install.bundle. --policy is the
default successor policy, which an olmops.io/successor-policy annotation
overrides; without either, a Subscription resolves as OLM classic does
(Classic) and a ClusterExtension as OLM v1 does (Semver).

Exit codes: 0 every subscription resolved; 1 a subscription cannot be
resolved (the error and its explanation are printed) or a subscription file
is invalid (its problems are printed with file and line); 2 usage or I/O
error: a bad flag value (such as an invalid --version range, or a package or
channel no catalog has), an unreadable file, or a catalog that does not load.`,
		Example: `  olmops resolve --catalog catalogs/operatorhub --package etcd --channel stable
  olmops resolve --catalog catalogs/operatorhub --package etcd \
      --installed etcdoperator.v0.9.2 --policy Classic -o json
  olmops resolve --catalog catalogs/operatorhub --catalog catalogs/internal:10 \
      --subscriptions clusters/prod-east/subscriptions/*.yaml`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) > 0 && len(opts.Subscriptions) == 0 {
				return usageErrorf("unexpected arguments %q (files go after --subscriptions)", a)
			}
			// --subscriptions a.yaml b.yaml: the shell expands a glob into
			// one flag value and then arguments.
			opts.Subscriptions = append(opts.Subscriptions, a...)
			return resolveRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	f.StringArrayVar(&opts.Catalogs, "catalog", nil, "catalog directory, with an optional :PRIORITY (repeatable)")
	f.StringVar(&opts.Package, "package", "", "package to resolve")
	f.StringArrayVar(&opts.Channels, "channel", nil, "channel to take bundles from (repeatable; default: Semver any, Classic the default channel)")
	f.StringVar(&opts.Version, "version", "", "OLM v1 version range, such as \">=1.2.0 <2.0.0\"")
	f.StringVar(&opts.Installed, "installed", "", "installed bundle, as BUNDLE or BUNDLE@VERSION")
	f.StringVar(&opts.Policy, "policy", "", "successor policy: Semver (OLM v1) or Classic (OLM classic); default Semver for --package, each object's own kind for --subscriptions")
	f.BoolVar(&opts.SelfCertified, "self-certified", false, "allow any bundle in range, ignoring upgrade edges (upgradeConstraintPolicy: SelfCertified)")
	f.StringArrayVar(&opts.Subscriptions, "subscriptions", nil, "Subscription or ClusterExtension file or directory (repeatable)")
	f.StringVar(&opts.Kubernetes, "kubernetes-version", "", "the cluster's Kubernetes version, for olm.kubeversion")
	_ = cmd.RegisterFlagCompletionFunc("package", completeResolvePackages)
	_ = cmd.RegisterFlagCompletionFunc("channel", completeChannels(catalogFlags, func(c *cobra.Command, _ []string) string {
		p, _ := c.Flags().GetString("package")
		return p
	}))
	f.StringVar(&opts.OpenShift, "openshift-version", "", "the cluster's OpenShift version, for olm.maxOpenShiftVersion")
	return cmd
}

func resolveRun(ctx context.Context, opts *resolveOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	cats, warnings, err := loadResolveCatalogs(ctx, opts.Catalogs)
	if err != nil {
		return err
	}
	cluster := resolver.Cluster{KubernetesVersion: opts.Kubernetes, OpenShiftVersion: opts.OpenShift}
	if len(opts.Subscriptions) > 0 {
		intents, err := readIntents(opts.Subscriptions)
		if err != nil {
			return err
		}
		out := resolveNamespaces(ctx, cats, cluster, intents, resolver.Policy(opts.Policy), warnings)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := writeResolve(opts.Out, opts.Output, out, writeNamespacesText); err != nil {
			return err
		}
		for _, ns := range out.Namespaces {
			if ns.Error != "" {
				return errFindings
			}
		}
		return nil
	}
	req, err := opts.request(cats)
	if err != nil {
		return err
	}
	sol, err := resolver.Resolve(ctx, resolver.Namespace{Catalogs: cats, Subscriptions: []resolver.Subscription{{Request: req}}, Cluster: cluster})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		if werr := writeResolve(opts.Out, opts.Output, toErrorJSON(err), writeErrorText); werr != nil {
			return werr
		}
		return errFindings
	}
	out := singleJSON{resultJSON: toResultJSON(sol.Subscriptions[0], req.Installed, warnings), Dependencies: toDependenciesJSON(sol.Dependencies)}
	return writeResolve(opts.Out, opts.Output, out, writeSingleText)
}

// check rejects flag combinations and values that cannot run.
func (o *resolveOptions) check() error {
	if err := oneOf("output", o.Output, "text", "json", "yaml"); err != nil {
		return err
	}
	if o.Policy != "" {
		if err := oneOf("policy", o.Policy, string(resolver.Semver), string(resolver.Classic)); err != nil {
			return err
		}
	}
	if len(o.Catalogs) == 0 {
		return usageErrorf("at least one --catalog is required")
	}
	if (o.Package == "") == (len(o.Subscriptions) == 0) {
		return usageErrorf("exactly one of --package and --subscriptions is required")
	}
	if len(o.Subscriptions) > 0 && (len(o.Channels) > 0 || o.Version != "" || o.Installed != "" || o.SelfCertified) {
		return usageErrorf("--channel, --version, --installed and --self-certified go with --package, not --subscriptions")
	}
	if _, err := semver.ParseRange(o.Version); err != nil {
		return usageErrorf("invalid --version %q: %v", o.Version, err)
	}
	return nil
}

// request builds the one subscription of the --package form, checking the
// package, channels and installed bundle against the catalogs.
func (o *resolveOptions) request(cats []*catalog.Catalog) (resolver.Request, error) {
	req := resolver.Request{
		Package: o.Package, Channels: o.Channels, VersionRange: o.Version,
		Policy: resolver.Policy(o.Policy), SelfCertified: o.SelfCertified,
	}
	var channels []string
	found := false
	for _, c := range cats {
		if p := c.Packages[o.Package]; p != nil {
			found = true
			channels = append(channels, p.ChannelNames()...)
		}
	}
	switch {
	case !found:
		return req, usageErrorf("package %q not found in any --catalog", o.Package)
	case channels == nil && (req.Policy == resolver.Classic || len(o.Channels) > 0):
		// OLM v1 may install a bundle in no channel; classic and a
		// named channel never can, and "not found" would mislead.
		return req, usageErrorf("package %q has no channels in any --catalog: none of its bundles is in a channel", o.Package)
	}
	slices.Sort(channels)
	channels = slices.Compact(channels)
	for _, ch := range o.Channels {
		if !slices.Contains(channels, ch) {
			return req, usageErrorf("channel %q not found in package %q (channels: %v)", ch, o.Package, channels)
		}
	}
	if o.Installed != "" {
		bundle, version, _ := strings.Cut(o.Installed, "@")
		if bundle == "" {
			return req, usageErrorf("invalid --installed %q: want BUNDLE or BUNDLE@VERSION", o.Installed)
		}
		if version != "" {
			if _, err := semver.ParseVersionRelease(version); err != nil {
				return req, usageErrorf("invalid --installed %q: version: %v", o.Installed, err)
			}
		}
		req.Installed = &resolver.Installed{Bundle: bundle, Version: version}
	}
	return req, nil
}

// loadResolveCatalogs loads every DIR[:PRIORITY]. Validation problems do not
// stop resolution, as in OLM: they come back as warnings, by package ("" for
// problems of no package).
func loadResolveCatalogs(ctx context.Context, specs []string) ([]*catalog.Catalog, map[string][]string, error) {
	type source struct {
		dir      string
		priority int
	}
	var sources []source
	names := map[string]string{}
	for _, s := range specs {
		dir, prio := s, 0
		if i := strings.LastIndex(s, ":"); i >= 0 {
			n, err := strconv.Atoi(s[i+1:])
			if err != nil {
				return nil, nil, usageErrorf("invalid --catalog %q: priority %q is not an integer", s, s[i+1:])
			}
			dir, prio = s[:i], n
		}
		name := filepath.Base(filepath.Clean(dir))
		if other, ok := names[name]; ok {
			return nil, nil, usageErrorf("--catalog %s and %s are both named %q", other, dir, name)
		}
		names[name] = dir
		sources = append(sources, source{dir, prio})
	}
	var cats []*catalog.Catalog
	warnings := map[string][]string{}
	for _, s := range sources {
		c, err := loadCatalog(ctx, s.dir)
		var ce *catalogError
		if errors.As(err, &ce) {
			// Unlike validate, resolve cannot go on: a usage or I/O error.
			return nil, nil, errors.New(ce.Error())
		}
		if err != nil {
			return nil, nil, err
		}
		c.Priority = s.priority
		for _, p := range c.Validate() {
			warnings[p.Package] = append(warnings[p.Package], "catalog "+c.Name+": "+findingLine(toFinding(s.dir, p)))
		}
		cats = append(cats, c)
	}
	return cats, warnings, nil
}

// findingLine writes a finding as "file:line: message".
func findingLine(f finding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	}
	return f.File + ": " + f.Message
}

// intentError lists the problems of subscription files, each with its file
// and line. It counts as findings (exit 1).
type intentError struct{ err error }

func (e *intentError) Error() string {
	return "invalid subscription files:\n" + e.err.Error()
}

func (e *intentError) Is(target error) bool { return target == errFindings }

// readIntents parses every file, and every *.yaml, *.yml and *.json file
// under every directory, of paths. An unreadable path is an I/O error; the
// problems of every file are reported together as an *intentError.
func readIntents(paths []string) ([]subscription.Intent, error) {
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := filepath.Ext(f)
			if !d.IsDir() && (f == p || ext == ".yaml" || ext == ".yml" || ext == ".json") {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("subscriptions: %w", err)
		}
	}
	var intents []subscription.Intent
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("subscriptions: %w", err)
		}
		in, err := subscription.Parse(f, data)
		intents = append(intents, in...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, &intentError{errors.Join(errs...)}
	}
	return intents, nil
}

// resolveNamespaces resolves the intents namespace by namespace, in name
// order. def is the successor policy of intents that do not name one.
func resolveNamespaces(ctx context.Context, cats []*catalog.Catalog, cluster resolver.Cluster, intents []subscription.Intent, def resolver.Policy, warnings map[string][]string) namespacesJSON {
	slices.SortStableFunc(intents, func(a, b subscription.Intent) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	out := namespacesJSON{Namespaces: []namespaceJSON{}}
	for len(intents) > 0 {
		n := 1
		for n < len(intents) && intents[n].Namespace == intents[0].Namespace {
			n++
		}
		group := intents[:n]
		intents = intents[n:]
		ns := resolver.Namespace{Catalogs: cats, Cluster: cluster}
		for _, in := range group {
			ns.Subscriptions = append(ns.Subscriptions, resolver.Subscription{Request: toRequest(in, def)})
		}
		nj := namespaceJSON{Namespace: group[0].Namespace}
		sol, err := resolver.Resolve(ctx, ns)
		if err != nil {
			e := toErrorJSON(err)
			nj.Error, nj.Explanation = e.Error, e.Explanation
			out.Namespaces = append(out.Namespaces, nj)
			continue
		}
		for i, r := range sol.Subscriptions {
			rj := toResultJSON(r, ns.Subscriptions[i].Installed, warnings)
			rj.Subscription = r.Name
			nj.Results = append(nj.Results, rj)
		}
		nj.Dependencies = toDependenciesJSON(sol.Dependencies)
		for _, f := range sol.Findings {
			nj.Findings = append(nj.Findings, f.Message)
		}
		out.Namespaces = append(out.Namespaces, nj)
	}
	return out
}

// toRequest maps an intent onto a resolver request.
func toRequest(in subscription.Intent, def resolver.Policy) resolver.Request {
	return in.Request(subscription.Policy(def))
}
