package review

import (
	"fmt"
	"strings"
	"testing"
)

func TestReviewAnnotationString(t *testing.T) {
	tests := []struct {
		a    Annotation
		want string
	}{
		{Annotation{Severity: Error, File: "a/b.yaml", Line: 3, Title: "etcd", Message: "bad"}, "::error file=a/b.yaml,line=3,title=etcd::bad"},
		{Annotation{Severity: Warning, File: "c:d,e.yaml", Message: "100% wrong\r\nsecond line"}, "::warning file=c%3Ad%2Ce.yaml::100%25 wrong%0D%0Asecond line"},
		{Annotation{Severity: Notice, Title: "p,q:r\n", Message: "a: b, c"}, "::notice title=p%2Cq%3Ar%0A::a: b, c"},
		{Annotation{Severity: Error, Message: "::error::x"}, "::error::::error::x"},
	}
	for _, tt := range tests {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("%+v:\n got %s\nwant %s", tt.a, got, tt.want)
		}
	}
}

func findings(sev Severity, n int) []Finding {
	out := make([]Finding, n)
	for i := range out {
		out[i] = Finding{Severity: sev, Pos: Pos{File: "f.yaml", Line: i + 1}, Title: string(sev), Message: fmt.Sprintf("%s %d", sev, i+1)}
	}
	return out
}

func TestReviewAnnotationCaps(t *testing.T) {
	tests := []struct {
		name    string
		in      []Finding
		lim     Limits
		want    map[string]int // annotations per command
		summary string         // "" for none
	}{
		{
			name: "within the caps",
			in:   append(findings(Error, 10), findings(Notice, 10)...),
			lim:  GitHubLimits,
			want: map[string]int{"::error": 10, "::notice": 10},
		},
		{
			name:    "70 errors",
			in:      findings(Error, 70),
			lim:     GitHubLimits,
			want:    map[string]int{"::error": 10, "::notice": 1},
			summary: "60 more annotations left out (60 errors)",
		},
		{
			name:    "every kind over",
			in:      append(append(findings(Error, 70), findings(Warning, 12)...), findings(Notice, 30)...),
			lim:     GitHubLimits,
			want:    map[string]int{"::error": 10, "::warning": 10, "::notice": 10},
			summary: "83 more annotations left out (60 errors, 2 warnings, 21 notices)",
		},
		{
			name:    "the job cap",
			in:      append(findings(Error, 12), findings(Warning, 12)...),
			lim:     Limits{PerType: 10, PerJob: 15},
			want:    map[string]int{"::error": 10, "::warning": 4, "::notice": 1},
			summary: "10 more annotations left out (2 errors, 8 warnings)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Annotations(tt.in, tt.lim)
			counts := map[string]int{}
			for _, line := range got {
				cmd, _, _ := strings.Cut(line[2:], "::")
				cmd, _, _ = strings.Cut(cmd, " ")
				counts["::"+cmd]++
			}
			if fmt.Sprint(counts) != fmt.Sprint(tt.want) {
				t.Errorf("got %v annotations, want %v:\n%s", counts, tt.want, strings.Join(got, "\n"))
			}
			if len(got) > tt.lim.PerJob {
				t.Errorf("%d annotations, over the job cap %d", len(got), tt.lim.PerJob)
			}
			last := got[len(got)-1]
			if tt.summary == "" && strings.Contains(last, "left out") || tt.summary != "" && !strings.HasPrefix(last, "::notice title=olmops review::"+tt.summary) {
				t.Errorf("last line %q, want the summary %q", last, tt.summary)
			}
			// The most important come first: errors before warnings
			// before notices, each in the order given.
			if !strings.HasPrefix(got[0], "::error") && tt.in[0].Severity == Error {
				t.Errorf("first annotation %q, want the first error", got[0])
			}
			if strings.Contains(strings.Join(got, "\n"), "error 11") {
				t.Error("the 11th error was kept over an earlier one")
			}
		})
	}
}
