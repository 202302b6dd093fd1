package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/olmops/olmops/render"
)

// crdUpgradeSafety refuses a plan whose CRD changes OLM v1's preflight
// finds unsafe, when the member's intent enforces it (a ClusterExtension,
// Strict unless it says None). The plan would otherwise be proposed and
// merged only for the controller to refuse it, or, for findings the
// controller cannot see in the live objects, break clients after it.
// Every unsafe CRD is named, each finding listed, so that the author
// can fix the bundle choice or opt out knowingly.
func crdUpgradeSafety(m member, c render.Changes) error {
	if m.intent == nil || !m.intent.StrictCRDUpgradeSafety() {
		return nil
	}
	var errs []error
	for _, cc := range c.CRDs {
		if len(cc.Breaks) == 0 {
			continue
		}
		errs = append(errs, fmt.Errorf("CRD %s: unsafe upgrade refused by crdUpgradeSafety (enforcement Strict): %s; "+
			"set spec.install.preflight.crdUpgradeSafety.enforcement: None to accept it", cc.CRD.Name, strings.Join(cc.Breaks, "; ")))
	}
	return errors.Join(errs...)
}
