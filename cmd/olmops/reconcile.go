//go:build !olmops_cli

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
)

// objectOptions are the flags of reconcile, suspend and resume.
type objectOptions struct {
	streams
	kube    kubeFlags
	Name    string
	Wait    bool
	Timeout time.Duration
	// poll is the pause between two reads while waiting.
	poll time.Duration
}

// kind is an olmops object the verbs act on: what they read and set.
type kind struct {
	name    string
	aliases []string
	new     func() client.Object
	// suspend points at spec.suspend; status returns the request last
	// handled and the conditions.
	suspend func(client.Object) *bool
	status  func(client.Object) (string, []metav1.Condition)
}

var kinds = []kind{
	{name: "repository", aliases: []string{"repositories", "repo"},
		new:     func() client.Object { return &v1alpha1.Repository{} },
		suspend: func(o client.Object) *bool { return &o.(*v1alpha1.Repository).Spec.Suspend },
		status: func(o client.Object) (string, []metav1.Condition) {
			st := o.(*v1alpha1.Repository).Status
			return st.LastHandledReconcileAt, st.Conditions
		}},
	{name: "planner", aliases: []string{"planners"},
		new:     func() client.Object { return &v1alpha1.Planner{} },
		suspend: func(o client.Object) *bool { return &o.(*v1alpha1.Planner).Spec.Suspend },
		status: func(o client.Object) (string, []metav1.Condition) {
			st := o.(*v1alpha1.Planner).Status
			return st.LastHandledReconcileAt, st.Conditions
		}},
}

// verb is one of reconcile, suspend and resume, which act on Repository
// and Planner objects as flux's commands of the same names do on its kinds.
type verb struct {
	name, short, long string
	waits             bool
	run               func(ctx context.Context, c client.Client, k kind, obj client.Object, opts *objectOptions) error
}

var verbs = []verb{
	{name: "reconcile", short: "Ask the controller for a pass of a Repository or Planner now", waits: true, run: reconcileObject,
		long: `Reconcile sets the reconcile.fluxcd.io/requestedAt annotation on a Repository
(apply) or a Planner (plan), which wakes its controller at once, and waits
until it records that request as handled: then it prints the Ready
condition. A suspended object is refused: resume it.

Exit codes: 0 Ready=True; 1 the pass ended Ready=False (the reason is
printed); 2 usage or API server error, a suspended object, or no
answer within --timeout.`},
	{name: "suspend", short: "Stop the controller from working on a Repository or Planner", run: suspendObject,
		long: `Suspend sets spec.suspend: the controller neither fetches, plans nor applies
until it is resumed, and says so in a Suspended condition (and the Suspended column
of kubectl get). A pass under way finishes.`},
	{name: "resume", short: "Let the controller work on a suspended Repository or Planner again", waits: true, run: resumeObject,
		long: `Resume clears spec.suspend and asks for a pass at once, then waits for it
as reconcile does. Exit codes as for reconcile.`},
}

func newVerbCmds(s streams) []*cobra.Command {
	var cmds []*cobra.Command
	for _, v := range verbs {
		parent := &cobra.Command{Use: v.name, Short: v.short}
		for _, k := range kinds {
			parent.AddCommand(newVerbCmd(s, v, k))
		}
		cmds = append(cmds, parent)
	}
	return cmds
}

func newVerbCmd(s streams, v verb, k kind) *cobra.Command {
	opts := &objectOptions{streams: s, poll: 500 * time.Millisecond}
	cmd := &cobra.Command{
		Use:     k.name + " NAME",
		Aliases: k.aliases,
		Short:   v.short,
		Long:    v.long,
		Example: fmt.Sprintf("  olmops %s %s fleet -n olmops-system", v.name, k.name),
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Name = a[0]
			return runVerb(cmd.Context(), v, k, opts)
		},
	}
	opts.kube.add(cmd, true)
	if v.waits {
		cmd.Flags().BoolVar(&opts.Wait, "wait", true, "wait for the pass to finish")
		cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "how long to wait")
	}
	return cmd
}

func runVerb(ctx context.Context, v verb, k kind, opts *objectOptions) error {
	_, c, err := opts.kube.client()
	if err != nil {
		return err
	}
	obj := k.new()
	key := client.ObjectKey{Namespace: opts.kube.namespace(), Name: opts.Name}
	if err := c.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("%s %s: %w", k.name, key, err)
	}
	return v.run(ctx, c, k, obj, opts)
}

func suspendObject(ctx context.Context, c client.Client, k kind, obj client.Object, opts *objectOptions) error {
	base := obj.DeepCopyObject().(client.Object)
	*k.suspend(obj) = true
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("suspend %s %s: %w", k.name, client.ObjectKeyFromObject(obj), err)
	}
	_, err := fmt.Fprintf(opts.Out, "%s %s suspended\n", k.name, client.ObjectKeyFromObject(obj))
	return err
}

func reconcileObject(ctx context.Context, c client.Client, k kind, obj client.Object, opts *objectOptions) error {
	if *k.suspend(obj) {
		return fmt.Errorf("%s %s is suspended: olmops resume %s %s -n %s", k.name, client.ObjectKeyFromObject(obj), k.name, obj.GetName(), obj.GetNamespace())
	}
	return request(ctx, c, k, obj, opts, func(client.Object) {})
}

func resumeObject(ctx context.Context, c client.Client, k kind, obj client.Object, opts *objectOptions) error {
	return request(ctx, c, k, obj, opts, func(o client.Object) { *k.suspend(o) = false })
}

// request patches obj with edit and a new reconcile request, then waits
// for the controller to handle it, as flux reconcile does.
func request(ctx context.Context, c client.Client, k kind, obj client.Object, opts *objectOptions, edit func(client.Object)) error {
	key := client.ObjectKeyFromObject(obj)
	base := obj.DeepCopyObject().(client.Object)
	edit(obj)
	at := time.Now().UTC().Format(time.RFC3339Nano)
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[v1alpha1.ReconcileRequestAnnotation] = at
	obj.SetAnnotations(ann)
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("request a pass of %s %s: %w", k.name, key, err)
	}
	fmt.Fprintf(opts.Err, "► reconcile of %s %s requested\n", k.name, key)
	if !opts.Wait {
		return nil
	}
	// A failed read is tried again until the timeout, and then named. Reads
	// use ctx, not the poll's: its deadline would fail the last read.
	var readErr error
	err := wait.PollUntilContextTimeout(ctx, opts.poll, opts.Timeout, true, func(context.Context) (bool, error) {
		if readErr = c.Get(ctx, key, obj); readErr != nil {
			return false, nil
		}
		handled, _ := k.status(obj)
		return handled == at, nil
	})
	if err != nil {
		if readErr != nil {
			return fmt.Errorf("%s %s: no answer within %s: %w", k.name, key, opts.Timeout, readErr)
		}
		return fmt.Errorf("%s %s: the controller did not handle the request within %s (is olmops serve running and watching it?)", k.name, key, opts.Timeout)
	}
	return reportReady(opts, k, obj)
}

// reportReady prints the Ready condition: findings when it is not True.
func reportReady(opts *objectOptions, k kind, obj client.Object) error {
	_, conds := k.status(obj)
	ready := meta.FindStatusCondition(conds, v1alpha1.ReadyCondition)
	if ready == nil {
		return errors.New("the pass left no Ready condition")
	}
	mark := "✔"
	if ready.Status != metav1.ConditionTrue {
		mark = "✗"
	}
	fmt.Fprintf(opts.Out, "%s %s %s: Ready=%s %s: %s\n", mark, k.name, client.ObjectKeyFromObject(obj), ready.Status, ready.Reason, ready.Message)
	if ready.Status != metav1.ConditionTrue {
		return errFindings
	}
	return nil
}
