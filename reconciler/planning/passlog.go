package planning

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/olmops/olmops/planner"
)

// logPass writes the one line a pass logs at the default verbosity: how
// it ended and what it committed and proposed. Each step's detail is
// V(1). controller-runtime's keys (controller, name, namespace,
// reconcileID, planner) are on the logger already and not repeated. A
// failed pass is not returned as an error (the Planner has its own
// backoff), so its error is logged here, redacted as the status is.
func logPass(ctx context.Context, p *pass, out *outcome, took, next time.Duration) {
	kv := []any{"result", string(out.result)}
	if out.reason != "" {
		kv = append(kv, "reason", out.reason)
	}
	if !p.head.IsZero() {
		kv = append(kv, "commit", p.head.String()[:12])
	}
	if p.report != nil {
		kv = append(kv, "committed", countActions(p.report, planner.ActionCommitted),
			"proposed", countActions(p.report, planner.ActionProposed), "held", countActions(p.report, planner.ActionHeld))
	}
	kv = append(kv, "duration", took.Round(time.Millisecond).String(), "next", next.String())
	if out.err != nil {
		kv = append(kv, "error", p.creds.Redact(out.err.Error()))
	}
	logr.FromContextOrDiscard(ctx).Info("reconciled", kv...)
}
