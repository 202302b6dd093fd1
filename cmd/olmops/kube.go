//go:build !olmops_cli

package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/reconciler"
)

// kubeFlags are kubectl's flags for reaching a cluster, on every command
// that touches one.
type kubeFlags struct {
	Kubeconfig, Context, Namespace string
}

// add registers --kubeconfig and --context and, with namespace,
// -n/--namespace, completing contexts from the kubeconfig.
func (k *kubeFlags) add(cmd *cobra.Command, namespace bool) {
	f := cmd.Flags()
	f.StringVar(&k.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	f.StringVar(&k.Context, "context", "", "kubeconfig context (default: the current context)")
	_ = cmd.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		raw, err := k.loader().RawConfig()
		if err != nil {
			return nil, noFiles
		}
		var names []string
		for name := range raw.Contexts {
			names = append(names, name)
		}
		slices.Sort(names)
		return names, noFiles
	})
	if namespace {
		f.StringVarP(&k.Namespace, "namespace", "n", "", "namespace of the object (default: the context's namespace)")
	}
}

func (k kubeFlags) loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.Kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.Context})
}

// restConfig loads the kubeconfig and context the flags name, or what
// controller-runtime finds: $KUBECONFIG, the in-cluster service account,
// ~/.kube/config.
func (k kubeFlags) restConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if k.Kubeconfig == "" && k.Context == "" {
		cfg, err = ctrl.GetConfig()
	} else {
		cfg, err = k.loader().ClientConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.UserAgent = "olmops/" + olmopsVersion()
	cfg.QPS, cfg.Burst = max(cfg.QPS, 50), max(cfg.Burst, 100)
	return cfg, nil
}

// namespace is -n, else the context's namespace (in a pod, its own), else
// "default", as kubectl picks it.
func (k kubeFlags) namespace() string {
	if k.Namespace != "" {
		return k.Namespace
	}
	if ns, _, err := k.loader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// client is a client of the cluster the flags name, knowing every kind
// olmops reads and writes; cfg is its config, for clients built beside it.
func (k kubeFlags) client() (*rest.Config, client.Client, error) {
	cfg, err := k.restConfig()
	if err != nil {
		return nil, nil, err
	}
	scheme, err := reconciler.Scheme()
	if err != nil {
		return nil, nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	return cfg, c, nil
}
