package v1alpha1_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/olmops/olmops/api/v1alpha1"
)

// The printer columns are JSONPath expressions in markers; only the API
// server evaluating them against a real object shows they are right.
func TestRepositoryPrinterColumns(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	r := newRepository(ns, "printed")
	if err := env.Client.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	r.Status.LastAppliedCommit = "0123456"
	r.Status.Conditions = []metav1.Condition{
		{Type: v1alpha1.ReconcilingCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.SucceededReason, LastTransitionTime: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{Type: v1alpha1.ReadyCondition, Status: metav1.ConditionTrue, Reason: v1alpha1.SucceededReason, Message: "applied 0123456", LastTransitionTime: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}
	if err := env.Client.Status().Update(t.Context(), r); err != nil {
		t.Fatal(err)
	}

	table := getTable(t, env.Config, fmt.Sprintf("/apis/olmops.io/v1alpha1/namespaces/%s/repositories/printed", ns))
	want := map[string]any{
		"Ready": "True", "Status": "applied 0123456", "Last Applied": "0123456", "Suspended": nil,
		"Cluster": "prod-east", "URL": "https://git.example.com/acme/gitops.git",
	}
	if len(table.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(table.Rows))
	}
	var names []string
	for i, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
		if w, ok := want[c.Name]; ok && table.Rows[0].Cells[i] != w {
			t.Errorf("column %s = %v, want %v", c.Name, table.Rows[0].Cells[i], w)
		}
	}
	wantNames := fmt.Sprint([]string{"Name", "Ready", "Status", "Age", "Last Applied", "Suspended", "Cluster", "URL"})
	if fmt.Sprint(names) != wantNames {
		t.Errorf("columns %v, want %s", names, wantNames)
	}
}

// getTable asks the API server for path rendered as a Table, the way
// kubectl get does.
func getTable(t *testing.T, cfg *rest.Config, path string) *metav1.Table {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	url := strings.TrimSuffix(cfg.Host, "/") + path
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	var table metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatalf("GET %s: decode the table: %v", url, err)
	}
	return &table
}
