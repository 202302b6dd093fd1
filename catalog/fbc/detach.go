package fbc

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/olmops/olmops/catalog/property"
)

// DetachLimit is the size from which a loaded value is kept as a reference
// into its file instead of in memory: CSV metadata, bundle objects and
// icons, which validation and resolution never read.
const DetachLimit = 1 << 10

// detach lets the decoded objects go of the file's bytes, so the buffer can
// be collected once the file is decoded: small values are copied, large
// ones read back from src when used.
func (c *Config) detach(data []byte, src io.ReaderAt) {
	props := func(ps []property.Property) {
		for i := range ps {
			ps[i].Value = ps[i].Value.Detach(data, src, DetachLimit)
		}
	}
	for i := range c.Packages {
		p := &c.Packages[i]
		props(p.Properties)
		if p.Icon != nil {
			v := p.Icon.Detach(data, src, DetachLimit)
			p.Icon = &v
		}
	}
	for i := range c.Channels {
		props(c.Channels[i].Properties)
	}
	for i := range c.Bundles {
		props(c.Bundles[i].Properties)
	}
	for i := range c.Others {
		c.Others[i].Value = c.Others[i].Value.Detach(data, src, DetachLimit)
	}
}

// fileSpan reads a catalog file back. A file that changed size since it
// was loaded is refused rather than misread.
type fileSpan struct {
	open func(name string) (fs.File, error)
	name string
	size int64
}

func (f *fileSpan) ReadAt(p []byte, off int64) (int, error) {
	file, err := f.open(f.name)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() != f.size {
		return 0, fmt.Errorf("%s changed since the catalog was loaded", f.name)
	}
	if ra, ok := file.(io.ReaderAt); ok {
		return ra.ReadAt(p, off)
	}
	if _, err := io.CopyN(io.Discard, file, off); err != nil {
		return 0, err
	}
	return io.ReadFull(file, p)
}
