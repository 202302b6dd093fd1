package catalogimport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// replaceDir makes dir hold exactly files. They are written to a folder
// beside it, which then takes its place: a failure leaves dir as it was.
// Nothing is written when dir already holds exactly files.
func replaceDir(dir string, files map[string][]byte) (changed bool, err error) {
	if same, _ := dirHolds(dir, files); same {
		return false, nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".import-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	for name, data := range files {
		if !filepath.IsLocal(name) {
			return false, fmt.Errorf("file %q would leave %s", name, dir)
		}
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return false, err
		}
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = fmt.Errorf("%w; the previous content is in %s", err, old)
		}
		return false, err
	}
	return true, os.RemoveAll(old)
}

// dirHolds reports whether dir holds exactly files, byte for byte.
func dirHolds(dir string, files map[string][]byte) (bool, error) {
	seen, differs := 0, false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got, err := os.ReadFile(p)
		if want, ok := files[rel]; !ok || err != nil || !bytes.Equal(got, want) {
			differs = true
			return fs.SkipAll
		}
		seen++
		return nil
	})
	return err == nil && !differs && seen == len(files), err
}

// replaceFile writes data to name through a file beside it renamed into
// place, so that a failure leaves name as it was.
func replaceFile(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".import-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op once renamed into place
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(name); err == nil {
		if err := os.Chmod(f.Name(), fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return os.Rename(f.Name(), name)
}
