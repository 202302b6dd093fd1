package v1alpha1

import (
	"fmt"
	"slices"
	"time"
)

// Promotion says which clusters a cluster follows. A target bundle is
// planned for the follower only once every cluster in After reports that
// bundle (or a newer one) installed and healthy for Soak without a break,
// as their controllers post it in commit statuses.
type Promotion struct {
	// after names the clusters of this repository the cluster follows.
	After []string `json:"after"`
	// soak is how long each of them must have run the bundle healthy, a
	// Go duration ("24h", "90m"). Defaults to 0: healthy once is enough.
	// +optional
	Soak string `json:"soak,omitempty"`
}

// SoakTime is Soak parsed; 0 when empty or malformed (Validate refuses
// the latter).
func (p *Promotion) SoakTime() time.Duration {
	if p == nil || p.Soak == "" {
		return 0
	}
	d, err := time.ParseDuration(p.Soak)
	if err != nil {
		return 0
	}
	return d
}

// Waves orders the clusters for promotion: wave 1 holds the clusters that
// follow nobody, wave n+1 those whose followed clusters are all in waves
// up to n. A cluster caught in a cycle, or following an unknown cluster,
// gets no wave (0); Validate reports both.
func (r *RepositoryConfig) Waves() map[string]int {
	wave := map[string]int{}
	byName := map[string]*Cluster{}
	for i := range r.Spec.Clusters {
		byName[r.Spec.Clusters[i].Name] = &r.Spec.Clusters[i]
	}
	for changed := true; changed; {
		changed = false
		for _, c := range r.Spec.Clusters {
			if wave[c.Name] != 0 {
				continue
			}
			w := 1
			if c.Promotion != nil {
				for _, a := range c.Promotion.After {
					if byName[a] == nil || wave[a] == 0 {
						w = 0
						break
					}
					w = max(w, wave[a]+1)
				}
			}
			if w != 0 {
				wave[c.Name], changed = w, true
			}
		}
	}
	return wave
}

// promotion validates the clusters' promotion settings: known clusters,
// none twice nor itself, a positive Go duration, and no cycle.
func (e *fieldErrors) promotion(r *RepositoryConfig) {
	names := map[string]bool{}
	for _, c := range r.Spec.Clusters {
		names[c.Name] = true
	}
	waves := r.Waves()
	for i, c := range r.Spec.Clusters {
		p := c.Promotion
		if p == nil {
			continue
		}
		f := fmt.Sprintf("spec.clusters[%d].promotion", i)
		if len(p.After) == 0 {
			e.add(f+".after", "name at least one cluster to follow")
		}
		bad := false
		for j, a := range p.After {
			af := fmt.Sprintf("%s.after[%d]", f, j)
			switch {
			case a == c.Name:
				e.add(af, "cluster %q cannot follow itself", a)
			case !names[a]:
				e.add(af, "cluster %q is not in spec.clusters", a)
			case slices.Index(p.After, a) < j:
				e.add(af, "cluster %q is named twice", a)
			default:
				continue
			}
			bad = true
		}
		if !bad && len(p.After) > 0 && waves[c.Name] == 0 {
			e.add(f+".after", "promotion cycle: %s follows, directly or not, a cluster that follows it", c.Name)
		}
		if p.Soak != "" {
			if d, err := time.ParseDuration(p.Soak); err != nil || d < 0 {
				e.add(f+".soak", "%q is not a duration like 24h or 90m", p.Soak)
			}
		}
	}
}
