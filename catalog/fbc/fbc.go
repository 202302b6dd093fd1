package fbc

import (
	"fmt"

	"github.com/olmops/olmops/catalog/property"
)

// Schemas of the objects olmops understands. Any other schema is kept as a Blob.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

// Pos is where an object starts: a file path and a 1-based line.
type Pos = property.Pos

// Config is every object of one catalog, in walk order (files in lexical
// order, objects in file order).
type Config struct {
	Packages     []Package
	Channels     []Channel
	Bundles      []Bundle
	Deprecations []Deprecation
	Others       []Blob
	// Warnings are what opm accepts without a word but a person should
	// still see, such as a key written twice in a mapping.
	Warnings []Warning
}

// Warning is a finding that changes no verdict: the file still reads as
// opm reads it.
type Warning struct {
	Pos Pos
	Msg string
}

func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// Append adds every object of o to c, keeping order.
func (c *Config) Append(o *Config) {
	c.Warnings = append(c.Warnings, o.Warnings...)
	c.Packages = append(c.Packages, o.Packages...)
	c.Channels = append(c.Channels, o.Channels...)
	c.Bundles = append(c.Bundles, o.Bundles...)
	c.Deprecations = append(c.Deprecations, o.Deprecations...)
	c.Others = append(c.Others, o.Others...)
}

// Package is an olm.package object.
type Package struct {
	Pos            Pos
	Name           string
	DefaultChannel string
	Description    string
	// Icon is the raw icon value ({base64data, mediatype}); nil when absent.
	Icon       *property.Value
	Properties []property.Property
}

// Channel is an olm.channel object.
type Channel struct {
	Pos        Pos
	Package    string
	Name       string
	Entries    []ChannelEntry
	Properties []property.Property
}

// ChannelEntry is one entry of a channel and its upgrade edges.
type ChannelEntry struct {
	Pos       Pos
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
}

// Bundle is an olm.bundle object.
type Bundle struct {
	Pos           Pos
	Package       string
	Name          string
	Image         string
	Properties    []property.Property
	RelatedImages []RelatedImage
}

// RelatedImage is an image a bundle's operator uses.
type RelatedImage struct {
	Name  string
	Image string
}

// Deprecation is an olm.deprecations object: the deprecated package,
// channels and bundles of one package.
type Deprecation struct {
	Pos     Pos
	Package string
	Entries []DeprecationEntry
}

// DeprecationEntry deprecates one package, channel or bundle.
type DeprecationEntry struct {
	Pos Pos
	// Schema is olm.package, olm.channel or olm.bundle.
	Schema  string
	Name    string
	Message string
}

// Blob is an object of a schema olmops does not model. It is kept, never
// dropped, the way opm keeps it.
type Blob struct {
	Pos     Pos
	Schema  string
	Package string
	Name    string
	Value   property.Value
}

// Error is a problem found while reading a catalog file.
type Error struct {
	Pos Pos
	Msg string
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Pos, e.Err)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Pos, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }
