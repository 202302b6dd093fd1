package catalog

import (
	"errors"
	"fmt"
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
	switch len(heads) {
	case 1:
		return heads[0], nil
	case 0:
		return nil, fmt.Errorf("%w: package %q, channel %q", ErrNoHead, ch.Package.Name, ch.Name)
	}
	names := make([]string, len(heads))
	for i, h := range heads {
		names[i] = h.Name
	}
	return nil, fmt.Errorf("%w: package %q, channel %q: %s", ErrManyHeads, ch.Package.Name, ch.Name, strings.Join(names, ", "))
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
