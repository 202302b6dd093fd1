package resolver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	mm "github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog"
)

// kubeVersionProblem says why a bundle cannot run on the cluster's
// Kubernetes version ("" when it can, or when either is unknown): its
// olm.kubeversion property, or else its CSV's spec.minKubeVersion, which
// OLM checks the same way.
func (p *problem) kubeVersionProblem(b *catalog.Bundle) string {
	have := p.ns.Cluster.KubernetesVersion
	if have == "" {
		return ""
	}
	want, what := b.Props.KubeVersion, "Kubernetes"
	if want == "" {
		want, what = minKubeVersion(b), "Kubernetes (CSV minKubeVersion)"
	}
	if want == "" {
		return ""
	}
	wv, err1 := mm.NewVersion(want)
	hv, err2 := mm.NewVersion(have)
	if err1 != nil || err2 != nil {
		return ""
	}
	if hv.LessThan(wv) {
		return fmt.Sprintf("bundle %s requires %s %s or newer; the cluster runs %s", b.Name, what, want, have)
	}
	return ""
}

// minKubeVersion reads spec.minKubeVersion from the bundle's
// olm.csv.metadata property; "" when it has none or it does not decode
// (catalog validation reports a broken property).
func minKubeVersion(b *catalog.Bundle) string {
	i := b.Props.CSVMetadata
	if i < 0 || i >= len(b.Properties) {
		return ""
	}
	raw, err := b.Properties[i].Value.JSON()
	if err != nil {
		return ""
	}
	var md struct {
		MinKubeVersion string `json:"minKubeVersion"`
	}
	if json.Unmarshal(raw, &md) != nil {
		return ""
	}
	return md.MinKubeVersion
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
