package reconciler

import (
	"context"
	"errors"
	"fmt"

	"github.com/olmops/olmops/reconciler/apply"
)

// Requests reads the target's plans as a pass would apply them, with the
// same checks (the plan sits in its own folder, is for this cluster, and
// its manifests match its digest). It refuses the whole set when one plan
// does not load, naming each such plan, so that a preview never leaves a
// plan out. What a previous pass left (Installed, Inventory) is not set.
func Requests(ctx context.Context, t Target) ([]apply.Request, error) {
	set, err := loadPlans(ctx, t)
	if err != nil {
		return nil, err
	}
	var reqs []apply.Request
	var errs []error
	for _, p := range set.plans {
		if p.err != nil {
			errs = append(errs, fmt.Errorf("%s/%s: %w", p.namespace, p.name, p.err))
			continue
		}
		reqs = append(reqs, p.req)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return reqs, nil
}
