package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/test/harness"
)

// maxMetrics caps the excerpt of /metrics.
const maxMetrics = 16

// show prints, per cluster, what olmops applied as its Repository records
// it, the live Deployments, and an excerpt of the controller's metrics.
func (d *demo) show(ctx context.Context) error {
	d.stopWatch() // so that late changes do not interleave with the listing
	for _, c := range d.clusters {
		if err := d.showRepository(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		if err := d.showDeployments(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	return d.showMetrics(ctx, d.clusters[prodEast])
}

func (d *demo) showRepository(ctx context.Context, c *harness.Cluster) error {
	var repo v1alpha1.Repository
	if err := c.Client.Get(ctx, c.Repo, &repo); err != nil {
		return err
	}
	d.out.printf("\n   %s: Repository %s, last applied commit %.12s\n", c.Name, c.Repo, repo.Status.LastAppliedCommit)
	for _, cond := range repo.Status.Conditions {
		d.out.block(fmt.Sprintf("condition %s=%s  %s: %s", cond.Type, cond.Status, cond.Reason, cond.Message))
	}
	for _, st := range repo.Status.Subscriptions {
		d.out.block(subscriptionLine(st) + ", inventory:")
		d.out.block("  " + strings.Join(st.Inventory, "\n  "))
	}
	return nil
}

// showDeployments lists the live Deployments olmops manages and who owns
// their fields: olmops the spec, the demo's stand-in kubelet the status.
func (d *demo) showDeployments(ctx context.Context, c *harness.Cluster) error {
	var list appsv1.DeploymentList
	if err := c.Client.List(ctx, &list, client.MatchingLabels{render.ManagedByLabel: render.ManagedBy}); err != nil {
		return err
	}
	for _, dep := range list.Items {
		var managers []string
		for _, m := range dep.ManagedFields {
			managers = append(managers, fmt.Sprintf("%s (%s)", m.Manager, strings.TrimSpace(string(m.Operation)+" "+m.Subresource)))
		}
		image := ""
		if cs := dep.Spec.Template.Spec.Containers; len(cs) > 0 {
			image = cs[0].Image
		}
		d.out.block(fmt.Sprintf("live: Deployment %s/%s  %d/%d available  %s\n  fields owned by: %s",
			dep.Namespace, dep.Name, dep.Status.AvailableReplicas, dep.Status.Replicas, image, strings.Join(managers, ", ")))
	}
	return nil
}

// showMetrics prints the olmops_ series of c's controller, without
// histogram buckets.
func (d *demo) showMetrics(ctx context.Context, c *harness.Cluster) error {
	url := "http://" + c.Serve.Metrics + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var lines []string
	total := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "olmops_") || strings.Contains(line, "_bucket{") {
			continue
		}
		if total++; total <= maxMetrics {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	d.out.printf("\n   %s: GET %s (olmops_ series, no buckets; %d of %d)\n", c.Name, url, len(lines), total)
	d.out.block(strings.Join(lines, "\n"))
	return nil
}
