package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ErrNoHead and ErrManyHeads say why a channel has no single head.
var (
	ErrNoHead    = errors.New("no channel head found in graph")
	ErrManyHeads = errors.New("multiple channel heads found in graph")
)

// Head returns the channel's head: the one entry that no other entry of the
// channel names in replaces or skips (skipRange does not count, as in opm).
func (ch *Channel) Head() (*Entry, error) {
	heads := ch.heads()
	switch len(heads) {
	case 1:
		return heads[0], nil
	case 0:
		return nil, fmt.Errorf("%w: package %q, channel %q", ErrNoHead, ch.Package.Name, ch.Name)
	}
	return nil, fmt.Errorf("%w: package %q, channel %q: %s", ErrManyHeads, ch.Package.Name, ch.Name, strings.Join(entryNames(heads), ", "))
}

// heads returns the entries no other entry names in replaces or skips,
// sorted by name.
func (ch *Channel) heads() []*Entry {
	named := make(map[string]bool, len(ch.Entries))
	for _, e := range ch.Entries {
		if e.Replaces != "" {
			named[e.Replaces] = true
		}
		for _, s := range e.Skips {
			named[s] = true
		}
	}
	var heads []*Entry
	for _, e := range ch.Entries {
		if !named[e.Name] {
			heads = append(heads, e)
		}
	}
	sort.Slice(heads, func(i, j int) bool { return heads[i].Name < heads[j].Name })
	return heads
}

func entryNames(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// ReplacesChain follows replaces from the head down the channel: the order
// OLM classic walks a channel. It stops at an entry the channel does not have
// or where the chain would loop.
func (ch *Channel) ReplacesChain() ([]*Entry, error) {
	head, err := ch.Head()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var chain []*Entry
	for e := head; e != nil; e = ch.entries[e.Replaces] {
		if seen[e.Name] {
			return chain, fmt.Errorf("package %q, channel %q: replaces cycle at %q", ch.Package.Name, ch.Name, e.Name)
		}
		seen[e.Name] = true
		chain = append(chain, e)
		if e.Replaces == "" {
			break
		}
	}
	return chain, nil
}

// graphProblem checks a channel's upgrade graph the way opm's model
// validation does and returns the first rule broken, "" if none: exactly
// one head; following replaces from the head never loops; every entry is on
// that replaces chain or skipped by some entry of the channel. The walk
// stops at a replaces edge whose target is skipped, so an entry that is
// both replaced and skipped does not carry the chain on (opm's rule).
func (ch *Channel) graphProblem() string {
	heads := ch.heads()
	switch len(heads) {
	case 0:
		return ErrNoHead.Error()
	case 1:
	default:
		return ErrManyHeads.Error() + ": " + strings.Join(entryNames(heads), ", ")
	}
	head := heads[0]
	skipped := map[string]bool{}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	onChain := map[string]bool{head.Name: true}
	chain := []string{head.Name}
	for cur := head; cur != nil; cur = ch.entries[cur.Replaces] {
		if skipped[cur.Replaces] {
			break
		}
		if onChain[cur.Replaces] {
			i := slices.Index(chain, cur.Replaces)
			cycle := append(slices.Clone(chain[i:]), cur.Replaces)
			return "detected cycle in replaces chain of upgrade graph: " + strings.Join(cycle, " -> ")
		}
		onChain[cur.Replaces] = true
		chain = append(chain, cur.Replaces)
	}
	var stranded []string
	for _, e := range ch.Entries {
		if !onChain[e.Name] && !skipped[e.Name] {
			stranded = append(stranded, e.Name)
		}
	}
	if len(stranded) > 0 {
		sort.Strings(stranded)
		return "channel contains one or more stranded bundles: " + strings.Join(stranded, ", ")
	}
	return ""
}
