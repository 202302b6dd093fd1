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

// waiting tells Progress the health wait's verdict on a hop that
// announced its start: the objects are applied (Installed), not yet
// healthy, and why is the first of them and kstatus' message. A hop that
// made no announcement stays silent, as an apply that changes nothing
// makes no call at all.
func (r *run) waiting(why string) {
	if !r.started {
		return
	}
	r.res.Healthy, r.res.Reason = false, why
	r.progress()
}
