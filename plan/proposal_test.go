package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

var realInputs = "sha256:" + strings.Repeat("0f", 32)

// TestBodyKeepsCatalogTextInert is the attack of issue 16: a deprecation
// message forges a section, hides what follows in a comment and carries a
// marker naming another target. The body shows the text as text, holds one
// marker line, and that marker is olmops's.
func TestBodyKeepsCatalogTextInert(t *testing.T) {
	forged := "use v2\n\n### RBAC\n\n✅ Reviewed by security\n<!-- olmops:plan cluster=prod namespace=ops name=etcd to=etcd.v9.9.9 inputs=" + realInputs + " -->\n<!--"
	p := &Proposal{
		Cluster: v1alpha1.Cluster{Name: "prod"},
		Main: Plan{Key: Key{Namespace: "ops", Name: "etcd"}, Dir: "clusters/prod/plans/ops/etcd", State: Install,
			File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{
				Package: "etcd", To: v1alpha1.PlanBundle{Name: "etcd.v0.9.4", Version: "0.9.4"},
				Path:         []v1alpha1.PlanHop{{PlanBundle: v1alpha1.PlanBundle{Name: "etcd.v0.9.4"}, Edge: "install", Channel: "stable\n### Forged"}},
				Warnings:     []string{forged, "second warning stays visible"},
				InputsDigest: realInputs,
			}}},
	}
	p.Plans = []Plan{p.Main}
	body := p.Body()
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "### RBAC") || strings.HasPrefix(line, "### Forged") || strings.HasPrefix(line, "<!--") && !strings.HasPrefix(line, "<!-- olmops:plan cluster=prod namespace=ops name=etcd to=etcd.v0.9.4 ") {
			t.Errorf("catalog text became Markdown structure: %q", line)
		}
	}
	if strings.Contains(body, "<!--\n") || strings.Count(body, "<!--") != 1 {
		t.Errorf("body holds %d HTML comment openers, want olmops's marker only:\n%s", strings.Count(body, "<!--"), body)
	}
	m, ok := ParseMarker(body)
	if !ok || m.To != "etcd.v0.9.4" {
		t.Fatalf("ParseMarker(body) = %+v, %v; want olmops's own marker", m, ok)
	}
	if !strings.Contains(body, "second warning stays visible") {
		t.Error("the warning after the forged one is missing")
	}
}

// TestBodyFitsGitHub: GitHub refuses a pull request whose body exceeds
// 65,536 characters, so an operator shipping thousands of objects, or a
// catalog with endless warnings, would leave its upgrade unproposable.
func TestBodyFitsGitHub(t *testing.T) {
	var objects []render.ObjectRef
	for i := range 3000 {
		objects = append(objects, render.ObjectRef{Version: "v1", Kind: "ConfigMap", Namespace: "ops", Name: fmt.Sprintf("dashboard-%04d", i)})
	}
	manyWarnings := make([]string, 4000)
	for i := range manyWarnings {
		manyWarnings[i] = fmt.Sprintf("bundle etcd.v0.9.%d is deprecated: use the stable channel", i)
	}
	for _, tc := range []struct {
		name     string
		warnings []string
		want     string
	}{
		{"object tables left to the plan folder", nil, "3000 added, 0 changed, 0 removed\n\nThe object-by-object changes do not fit"},
		{"warnings cut at a line", manyWarnings, "… cut here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Proposal{
				Cluster: v1alpha1.Cluster{Name: "prod"},
				Graph:   "```mermaid\nflowchart LR\n```\n",
				Main: Plan{Key: Key{Namespace: "ops", Name: "etcd"}, Dir: "clusters/prod/plans/ops/etcd", State: Install,
					Changes: render.Changes{Added: objects},
					File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{
						Package: "etcd", To: v1alpha1.PlanBundle{Name: "etcd.v0.9.4", Version: "0.9.4"},
						Warnings: tc.warnings, InputsDigest: realInputs,
					}}},
			}
			p.Plans = []Plan{p.Main}
			body := p.Body()
			if len(body) > MaxBody {
				t.Errorf("body has %d bytes, more than %d", len(body), MaxBody)
			}
			if !strings.Contains(body, tc.want) {
				t.Errorf("body lacks %q", tc.want)
			}
			if m, ok := ParseMarker(body); !ok || m.To != "etcd.v0.9.4" || !strings.HasSuffix(body, m.String()+"\n") {
				t.Errorf("the marker is not the body's last line: %v %q", ok, body[max(0, len(body)-200):])
			}
		})
	}
}

func TestTitleFitsGitHub(t *testing.T) {
	long := strings.Repeat("é", 400)
	p := &Proposal{Cluster: v1alpha1.Cluster{Name: "prod"}, Main: Plan{Key: Key{Namespace: "ops", Name: "etcd"}, State: Install,
		File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{Package: long, To: v1alpha1.PlanBundle{Name: "x", Version: "1.0.0"}}}}}
	got := p.Title()
	if n := len([]rune(got)); n != MaxTitle || !strings.HasPrefix(got, "install éé") || !strings.HasSuffix(got, "…") {
		t.Errorf("Title() has %d characters (%q…), want %d ending in …", n, got[:20], MaxTitle)
	}
}

func TestParseMarker(t *testing.T) {
	own := Marker{Cluster: "prod", Namespace: "ops", Name: "etcd", To: "etcd.v0.9.4", Inputs: realInputs}.String()
	forged := Marker{Cluster: "prod", Namespace: "ops", Name: "etcd", To: "etcd.v9.9.9", Inputs: realInputs}.String()
	tests := []struct {
		name   string
		body   string
		wantTo string // "" for no marker
	}{
		{name: "own marker", body: "text\n" + own + "\n", wantTo: "etcd.v0.9.4"},
		{name: "the last marker wins", body: forged + "\n" + own + "\n", wantTo: "etcd.v0.9.4"},
		{name: "a marker inside a line", body: "x " + own + "\n"},
		{name: "bad inputs digest", body: strings.Replace(own, realInputs, "sha256:ab", 1)},
		{name: "bad namespace", body: strings.Replace(own, "namespace=ops", "namespace=Ops_", 1)},
		{name: "bad bundle name", body: strings.Replace(own, "to=etcd.v0.9.4", "to=-->", 1)},
		{name: "none", body: "no marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := ParseMarker(tt.body)
			if ok != (tt.wantTo != "") || m.To != tt.wantTo {
				t.Fatalf("ParseMarker = %+v, %v; want to=%q", m, ok, tt.wantTo)
			}
		})
	}
}

// FuzzParseMarker: whatever the body, a marker found has well-formed
// fields and prints back to a line the body holds.
func FuzzParseMarker(f *testing.F) {
	f.Add("text\n" + Marker{Cluster: "c", Namespace: "n", Name: "s", To: "b.v1", Inputs: realInputs}.String() + "\n")
	f.Add("<!-- olmops:plan cluster=a namespace=b name=c to=d inputs=e -->")
	f.Fuzz(func(t *testing.T, body string) {
		m, ok := ParseMarker(body)
		if !ok {
			return
		}
		if !strings.Contains(body, m.String()) || !digestRE().MatchString(m.Inputs) || !dnsName().MatchString(m.Cluster) {
			t.Fatalf("ParseMarker(%q) = %+v", body, m)
		}
	})
}
