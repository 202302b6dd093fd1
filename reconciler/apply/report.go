package apply

import (
	"cmp"

	"github.com/olmops/olmops/commitstatus"
)

// Report turns the result into what the subscription's commit status says
// (see docs/statuses.md).
func (r *Result) Report() commitstatus.Report {
	rep := commitstatus.Report{Phase: r.Phase, Bundle: r.Bundle, NotUpgradeable: r.NotUpgradeable}
	switch r.Phase {
	case commitstatus.Installed:
		rep.Bundle, rep.Healthy, rep.Reason = r.Installed, r.Healthy, r.Reason
	case commitstatus.Held:
		rep.Bundle = r.Installed
		if len(r.MissingPermissions) > 0 {
			// As a dependency hold says: held at what is installed, or at
			// the bundle not applied when nothing is yet.
			rep.Bundle, rep.Reason = cmp.Or(r.Installed, r.Bundle), r.Reason
		}
	case commitstatus.Failed:
		rep.Reason = r.Reason
	case commitstatus.Applying:
		if r.Hops > 1 {
			rep.Hop, rep.Hops = r.Hop, r.Hops
		}
	}
	return rep
}
