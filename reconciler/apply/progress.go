package apply

import "slices"

// announce tells Progress that the current hop started, once.
func (r *run) announce() {
	if r.started {
		return
	}
	r.started = true
	r.progress()
}

// progress hands Progress a copy of the Result, with its own Inventory,
// so that the callee may keep it while the apply goes on.
func (r *run) progress() {
	if r.req.Progress == nil {
		return
	}
	res := *r.res
	res.Inventory = slices.Clone(res.Inventory)
	r.req.Progress(res)
}
