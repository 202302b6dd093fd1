package catalog

// Warnings returns what the files say that opm reads without a word but a
// person should see: a key written twice in a mapping, whose last value is
// used as opm uses it. Warnings never change Validate's verdict. A key
// written twice inside a property value that the decoder keeps unread (CSV
// metadata, bundle objects) is read the same way, last value first, but is
// not reported.
func (c *Catalog) Warnings() Problems {
	out := make(Problems, 0, len(c.warnings))
	for _, w := range c.warnings {
		out = append(out, Problem{Pos: w.Pos, Message: w.Msg})
	}
	return out
}
