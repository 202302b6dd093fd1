package review

import "testing"

func TestReviewImpactLine(t *testing.T) {
	ok := func(bundle, version, installed string) *Resolved {
		return &Resolved{Bundle: bundle, Version: version, Installed: installed}
	}
	tests := []struct {
		name       string
		approval   string
		kind       string
		base, head *Resolved
		want       string
	}{
		{"upgrade proposed", "Manual", "Subscription", ok("e.v1", "1", "e.v1"), ok("e.v2", "2", "e.v1"), "c/ns/s: 1 → 2, Manual, a pull request will be opened"},
		{"upgrade committed", "Automatic", "Subscription", ok("e.v1", "1", "e.v1"), ok("e.v2", "2", "e.v1"), "c/ns/s: 1 → 2, Automatic, will be committed"},
		{"new subscription", "Automatic", "ClusterExtension", nil, ok("e.v2", "", ""), "c/ns/s: (none) → e.v2, Automatic, will be committed"},
		{"plan carried by the head", "Manual", "Subscription", ok("e.v2", "2", "e.v1"), ok("e.v2", "2", "e.v2"), "c/ns/s: 2, Manual, the plan in this pull request is applied after the merge"},
		{"pending already", "Manual", "Subscription", ok("e.v2", "2", "e.v1"), ok("e.v2", "2", "e.v1"), "c/ns/s: 2, Manual, unchanged"},
		{"removed with its plan", "Manual", "Subscription", ok("e.v1", "1", "e.v1"), nil, "c/ns/s: 1 → (none), Manual, a pull request will remove the plan"},
		{"removed, never planned", "Automatic", "Subscription", ok("e.v1", "1", ""), nil, "c/ns/s: 1 → (none), Automatic, no plan to remove"},
		{"breaks", "Automatic", "Subscription", ok("e.v1", "1", "e.v1"), &Resolved{Error: "no"}, "c/ns/s: 1 → does not resolve"},
		{"fixed", "Automatic", "Subscription", &Resolved{Error: "no"}, ok("e.v1", "1", ""), "c/ns/s: does not resolve → 1, Automatic, will be committed"},
		{"new dependency", "Manual", kindDependency, nil, ok("d.v1", "1", ""), "c/ns/s: new dependency, (none) → 1, Manual, a pull request will be opened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im := Impact{Cluster: "c", Namespace: "ns", Name: "s", Kind: tt.kind, Approval: tt.approval, Base: tt.base, Head: tt.head}
			im.Action = action(im)
			if got := im.Line(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestReviewLocated(t *testing.T) {
	tests := []struct {
		msg  string
		want Problem
	}{
		{"a/b.yaml:12: bad field", Problem{Pos: Pos{File: "a/b.yaml", Line: 12}, Message: "bad field"}},
		{"clusters/x: cannot read", Problem{Pos: Pos{File: "clusters/x"}, Message: "cannot read"}},
		{"something else: entirely", Problem{Pos: Pos{File: "clusters/x"}, Message: "something else: entirely"}},
	}
	for _, tt := range tests {
		if got := located("", "clusters/x", tt.msg); got != tt.want {
			t.Errorf("located(%q) = %+v, want %+v", tt.msg, got, tt.want)
		}
	}
	if got := firstPos("cluster c, namespace n: clusters/c/subscriptions/s.yaml:4: Subscription n/s: no"); got != (Pos{File: "clusters/c/subscriptions/s.yaml", Line: 4}) {
		t.Errorf("firstPos = %+v", got)
	}
}
