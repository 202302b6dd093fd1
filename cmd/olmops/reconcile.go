package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/reconciler"
)

// repositoryOptions are the flags of reconcile, suspend and resume.
type repositoryOptions struct {
	streams
	kube    kubeFlags
	Name    string
	Wait    bool
	Timeout time.Duration
	// poll is the pause between two reads while waiting.
	poll time.Duration
}

// verb is one of reconcile, suspend and resume, which act on Repository
// objects as flux's commands of the same names do on its kinds.
type verb struct {
	name, short, long string
	waits             bool
	run               func(ctx context.Context, c client.Client, obj *v1alpha1.Repository, opts *repositoryOptions) error
}

var verbs = []verb{
	{name: "reconcile", short: "Ask the controller for a pass of a Repository now", waits: true, run: reconcileRepository,
		long: `Reconcile sets the reconcile.fluxcd.io/requestedAt annotation on the Repository,
which wakes the controller at once, and waits until it records that request
as handled: then it prints the Ready condition. A suspended Repository is
refused: resume it.

Exit codes: 0 Ready=True; 1 the pass ended Ready=False (the reason is
printed); 2 usage or API server error, a suspended Repository, or no
answer within --timeout.`},
	{name: "suspend", short: "Stop the controller from fetching and applying a Repository", run: suspendRepository,
		long: `Suspend sets spec.suspend: the controller neither fetches nor applies until
it is resumed, and says so in a Suspended condition (and the Suspended column
of kubectl get repositories). A pass under way finishes.`},
	{name: "resume", short: "Let the controller reconcile a suspended Repository again", waits: true, run: resumeRepository,
		long: `Resume clears spec.suspend and asks for a pass at once, then waits for it
as reconcile does. Exit codes as for reconcile.`},
}

func newVerbCmds(s streams) []*cobra.Command {
	var cmds []*cobra.Command
	for _, v := range verbs {
		parent := &cobra.Command{Use: v.name, Short: v.short}
		opts := &repositoryOptions{streams: s, poll: 500 * time.Millisecond}
		sub := &cobra.Command{
			Use:     "repository NAME",
			Aliases: []string{"repositories", "repo"},
			Short:   v.short,
			Long:    v.long,
			Example: fmt.Sprintf("  olmops %s repository staging -n olmops-system", v.name),
			Args:    args(cobra.ExactArgs(1)),
			RunE: func(cmd *cobra.Command, a []string) error {
				opts.Name = a[0]
				return runVerb(cmd.Context(), v, opts)
			},
		}
		opts.kube.add(sub, true)
		if v.waits {
			sub.Flags().BoolVar(&opts.Wait, "wait", true, "wait for the pass to finish")
			sub.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "how long to wait")
		}
		parent.AddCommand(sub)
		cmds = append(cmds, parent)
	}
	return cmds
}

func runVerb(ctx context.Context, v verb, opts *repositoryOptions) error {
	cfg, err := opts.kube.restConfig()
	if err != nil {
		return err
	}
	scheme, err := reconciler.Scheme()
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	obj := &v1alpha1.Repository{}
	key := client.ObjectKey{Namespace: opts.kube.namespace(), Name: opts.Name}
	if err := c.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("repository %s: %w", key, err)
	}
	return v.run(ctx, c, obj, opts)
}

func suspendRepository(ctx context.Context, c client.Client, obj *v1alpha1.Repository, opts *repositoryOptions) error {
	base := obj.DeepCopy()
	obj.Spec.Suspend = true
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("suspend repository %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	_, err := fmt.Fprintf(opts.Out, "repository %s suspended\n", client.ObjectKeyFromObject(obj))
	return err
}

func reconcileRepository(ctx context.Context, c client.Client, obj *v1alpha1.Repository, opts *repositoryOptions) error {
	if obj.Spec.Suspend {
		return fmt.Errorf("repository %s is suspended: olmops resume repository %s -n %s", client.ObjectKeyFromObject(obj), obj.Name, obj.Namespace)
	}
	return request(ctx, c, obj, opts, func(*v1alpha1.Repository) {})
}

func resumeRepository(ctx context.Context, c client.Client, obj *v1alpha1.Repository, opts *repositoryOptions) error {
	return request(ctx, c, obj, opts, func(o *v1alpha1.Repository) { o.Spec.Suspend = false })
}

// request patches obj with edit and a new reconcile request, then waits
// for the controller to handle it, as flux reconcile does.
func request(ctx context.Context, c client.Client, obj *v1alpha1.Repository, opts *repositoryOptions, edit func(*v1alpha1.Repository)) error {
	key := client.ObjectKeyFromObject(obj)
	base := obj.DeepCopy()
	edit(obj)
	at := time.Now().UTC().Format(time.RFC3339Nano)
	if obj.Annotations == nil {
		obj.Annotations = map[string]string{}
	}
	obj.Annotations[v1alpha1.ReconcileRequestAnnotation] = at
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("request a pass of repository %s: %w", key, err)
	}
	fmt.Fprintf(opts.Err, "► reconcile of repository %s requested\n", key)
	if !opts.Wait {
		return nil
	}
	err := wait.PollUntilContextTimeout(ctx, opts.poll, opts.Timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, obj); err != nil {
			return false, err
		}
		return obj.Status.LastHandledReconcileAt == at, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("repository %s: the controller did not handle the request within %s (is olmops serve running and watching it?)", key, opts.Timeout)
	}
	if err != nil {
		return fmt.Errorf("repository %s: %w", key, err)
	}
	return reportReady(opts, obj)
}

// reportReady prints the Ready condition: findings when it is not True.
func reportReady(opts *repositoryOptions, obj *v1alpha1.Repository) error {
	ready := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition)
	if ready == nil {
		return errors.New("the pass left no Ready condition")
	}
	mark := "✔"
	if ready.Status != metav1.ConditionTrue {
		mark = "✗"
	}
	fmt.Fprintf(opts.Out, "%s repository %s: Ready=%s %s: %s\n", mark, client.ObjectKeyFromObject(obj), ready.Status, ready.Reason, ready.Message)
	if ready.Status != metav1.ConditionTrue {
		return errFindings
	}
	return nil
}
