package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
)

// Wave is the impacted clusters a change reaches together under
// promotion: wave 1 those that follow nobody, then each follower once the
// clusters it follows have soaked the change.
type Wave struct {
	Number   int      `json:"number"`
	Clusters []string `json:"clusters"`
	// Waits says, per cluster, whom it follows and for how long.
	Waits []string `json:"waits,omitempty"`
}

// waves orders the clusters of impact by olmops.yaml's promotion; none
// when no impacted cluster follows another, as then every cluster is
// planned at once.
func waves(specs []v1alpha1.Cluster, impact []Impact) []Wave {
	cfg := &v1alpha1.RepositoryConfig{Spec: v1alpha1.RepositoryConfigSpec{Clusters: specs}}
	number := cfg.Waves()
	byNumber := map[int]*Wave{}
	follows := false
	for _, c := range specs {
		if !slices.ContainsFunc(impact, func(im Impact) bool { return im.Cluster == c.Name }) {
			continue
		}
		n := number[c.Name]
		if byNumber[n] == nil {
			byNumber[n] = &Wave{Number: n}
		}
		w := byNumber[n]
		w.Clusters = append(w.Clusters, c.Name)
		if p := c.Promotion; p != nil {
			follows = true
			wait := fmt.Sprintf("%s after %s", c.Name, strings.Join(p.After, ", "))
			if p.Soak != "" {
				wait += " (soak " + p.Soak + ")"
			}
			w.Waits = append(w.Waits, wait)
		}
	}
	if !follows {
		return nil
	}
	var out []Wave
	for _, n := range slices.Sorted(maps.Keys(byNumber)) {
		out = append(out, *byNumber[n])
	}
	return out
}

// Text is the wave in one line: "wave 2: prod (prod after staging (soak 24h))".
func (w Wave) Text() string {
	s := fmt.Sprintf("wave %d: %s", w.Number, strings.Join(w.Clusters, ", "))
	if w.Number == 0 {
		s = "no wave (a promotion cycle or an unknown cluster): " + strings.Join(w.Clusters, ", ")
	}
	if len(w.Waits) > 0 {
		s += " — " + strings.Join(w.Waits, "; ")
	}
	return s
}
