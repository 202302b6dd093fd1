package resolver

import (
	"fmt"
	"strconv"
	"strings"

	mm "github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog"
)

// kubeVersionProblem says why a bundle cannot run on the cluster's
// Kubernetes version ("" when it can, or when either is unknown).
func (p *problem) kubeVersionProblem(b *catalog.Bundle) string {
	want, have := b.Props.KubeVersion, p.ns.Cluster.KubernetesVersion
	if want == "" || have == "" {
		return ""
	}
	wv, err1 := mm.NewVersion(want)
	hv, err2 := mm.NewVersion(have)
	if err1 != nil || err2 != nil {
		return ""
	}
	if hv.LessThan(wv) {
		return fmt.Sprintf("bundle %s requires Kubernetes %s or newer; the cluster runs %s", b.Name, want, have)
	}
	return ""
}

// OpenShiftBlocker reports a bundle whose olm.maxOpenShiftVersion is
// below the cluster's next minor version: the cluster cannot upgrade while
// it is installed. Only major.minor count, as in OLM.
func OpenShiftBlocker(b *catalog.Bundle, clusterVersion string) (Finding, bool) {
	maxV := b.Props.MaxOpenShiftVersion
	if maxV == "" || clusterVersion == "" {
		return Finding{}, false
	}
	cMaj, cMin, err := majorMinor(clusterVersion)
	if err != nil {
		return Finding{}, false
	}
	mMaj, mMin, err := majorMinor(maxV)
	if err != nil {
		return Finding{Bundle: b.Name, Message: fmt.Sprintf("bundle %s has an invalid olm.maxOpenShiftVersion %q: %v", b.Name, maxV, err)}, true
	}
	next := [2]int{cMaj, cMin + 1}
	if mMaj < next[0] || (mMaj == next[0] && mMin < next[1]) {
		return Finding{Bundle: b.Name, Message: fmt.Sprintf(
			"cluster not upgradeable: bundle %s allows OpenShift up to %d.%d, and the cluster's next minor version is %d.%d",
			b.Name, mMaj, mMin, next[0], next[1])}, true
	}
	return Finding{}, false
}

// majorMinor reads "4.19", "4.19.3" or "4.19.0-rc.1" as (4, 19).
func majorMinor(v string) (int, int, error) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("want major.minor, got %q", v)
	}
	maj, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, fmt.Errorf("major version %q: %w", parts[0], err)
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, 0, fmt.Errorf("minor version %q: %w", parts[1], err)
	}
	return maj, minor, nil
}
