package commitstatus

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmops/olmops/gitsource"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		r     Report
		desc  string
		state gitsource.StatusState
	}{
		{Report{Phase: Installed, Bundle: "etcd.v0.9.4", Healthy: true}, "etcd.v0.9.4 installed · healthy", gitsource.StatusSuccess},
		{Report{Phase: Installed, Bundle: "etcd.v0.9.4", Healthy: true, NotUpgradeable: "migration"}, "etcd.v0.9.4 installed · healthy · Upgradeable=False: migration", gitsource.StatusSuccess},
		{Report{Phase: Installed, Bundle: "etcd.v0.9.4", Reason: "Deployment etcd-operator: 0/1 available"}, "etcd.v0.9.4 installed · unhealthy: Deployment etcd-operator: 0/1 available", gitsource.StatusFailure},
		{Report{Phase: Applying, Bundle: "etcd.v0.9.4", Hop: 2, Hops: 3}, "applying etcd.v0.9.4 (hop 2/3)", gitsource.StatusPending},
		{Report{Phase: Applying, Bundle: "etcd.v0.9.4"}, "applying etcd.v0.9.4", gitsource.StatusPending},
		{Report{Phase: Held, Bundle: "etcd.v0.9.2", NotUpgradeable: "backup running"}, "held at etcd.v0.9.2 · Upgradeable=False: backup running", gitsource.StatusPending},
		{Report{Phase: Held, Bundle: "etcd.v0.9.2", Reason: "maxOpenShiftVersion 4.19"}, "held at etcd.v0.9.2 · maxOpenShiftVersion 4.19", gitsource.StatusPending},
		{Report{Phase: Failed, Bundle: "etcd.v0.9.4", Reason: `Deployment "x" is invalid: spec.replicas: must be >= 0`}, `etcd.v0.9.4 failed: Deployment "x" is invalid: spec.replicas: must be >= 0`, gitsource.StatusFailure},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := tt.r.Description(); got != tt.desc {
				t.Fatalf("Description() = %q, want %q", got, tt.desc)
			}
			if got := tt.r.State(); got != tt.state {
				t.Errorf("State() = %s, want %s", got, tt.state)
			}
			back, err := Parse(tt.desc)
			if err != nil {
				t.Fatal(err)
			}
			if back != tt.r {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.desc, back, tt.r)
			}
		})
	}
}

func TestDescriptionIsCut(t *testing.T) {
	r := Report{Phase: Installed, Bundle: "etcd.v0.9.4", Healthy: true, NotUpgradeable: strings.Repeat("é", 300)}
	d := r.Description()
	if n := utf8.RuneCountInString(d); n != gitsource.MaxStatusDescription {
		t.Fatalf("description has %d characters, want %d", n, gitsource.MaxStatusDescription)
	}
	back, err := Parse(d)
	if err != nil {
		t.Fatal(err)
	}
	if back.Phase != Installed || back.Bundle != "etcd.v0.9.4" || !strings.HasPrefix(back.NotUpgradeable, "éé") {
		t.Errorf("Parse of a cut description = %+v", back)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, d := range []string{"", "ok", "applying ", "applying x (hop a/b)", " installed · healthy", "hello world failed: x"} {
		if r, err := Parse(d); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", d, r)
		}
	}
}

func TestContexts(t *testing.T) {
	if got := Context("prod-east", "operators", "etcd"); got != "olmops/prod-east/operators/etcd" {
		t.Errorf("Context = %q", got)
	}
	if got := ClusterContext("prod-east"); got != "olmops/prod-east" {
		t.Errorf("ClusterContext = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"etcd.v1 installed · healthy", "applying a (hop 1/2)", "held at a · Upgradeable=False: m", "a failed: r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil || !utf8.ValidString(s) || utf8.RuneCountInString(r.Description()) >= gitsource.MaxStatusDescription {
			return // a cut description keeps what fits, not the whole report
		}
		// What parses must be written back to something that parses the same.
		again, err := Parse(r.Description())
		if err != nil {
			t.Fatalf("Parse(%q) = %+v whose description %q does not parse: %v", s, r, r.Description(), err)
		}
		if again.Phase != r.Phase || again.Bundle != r.Bundle {
			t.Fatalf("round trip of %q: %+v then %+v", s, r, again)
		}
	})
}
