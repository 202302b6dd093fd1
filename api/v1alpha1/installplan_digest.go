package v1alpha1

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// ManifestsDigest is the spec.manifestsDigest of a plan folder whose
// files, other than installplan.yaml, are files. Keys are slash paths
// relative to the plan folder, as `olmops plan` writes them: the target's
// "manifests/<kind>-<name>.yaml" and each intermediate hop's
// "hops/<NN>-<bundle>/<kind>-<name>.yaml". The digest is
// "sha256:<hex>" over the files in path order, each its path and its
// content, both length-prefixed, so that no bytes can move from one file
// to another unnoticed.
func ManifestsDigest(files map[string][]byte) string {
	d := filesDigest{sha256.New()}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		d.begin(name, int64(len(data)))
		d.h.Write(data)
		d.end()
	}
	return d.sum()
}

// filesDigest writes files into a hash the way ManifestsDigest defines,
// a file at a time, so that VerifyManifests can stream what it reads.
type filesDigest struct{ h hash.Hash }

func (d filesDigest) begin(name string, size int64) {
	fmt.Fprintf(d.h, "4:file%d:%s\n%d:", len(name), name, size)
}

func (d filesDigest) end() { d.h.Write([]byte{'\n'}) }

func (d filesDigest) sum() string { return "sha256:" + hex.EncodeToString(d.h.Sum(nil)) }

// VerifyManifests checks that the plan folder dir of fsys holds the
// manifests plan was written with: every file under dir but
// dir/installplan.yaml, hashed as ManifestsDigest does, gives
// plan.Spec.ManifestsDigest. An edit, an added or a removed file is an
// *Error at the manifestsDigest line of installplan.yaml, since the fix is
// to plan again, not to touch the manifest. Files are streamed, so a
// large file added by hand costs no memory.
func VerifyManifests(fsys fs.FS, dir string, plan *InstallPlan) error {
	file := path.Join(dir, InstallPlanFile)
	names, err := manifestNames(fsys, dir, file)
	if err != nil {
		return err
	}
	d := filesDigest{sha256.New()}
	for _, name := range names {
		if err := d.add(fsys, path.Join(dir, name), name); err != nil {
			return err
		}
	}
	got, want := d.sum(), plan.Spec.ManifestsDigest
	if got == want {
		return nil
	}
	pos := Pos{File: file, Line: digestLine(fsys, file)}
	if want == "" {
		return &Error{Pos: pos, Msg: "no manifestsDigest: the plan was not written by olmops plan; run olmops plan"}
	}
	return &Error{Pos: pos, Msg: fmt.Sprintf("manifestsDigest %s does not match the manifests (%s): "+
		"the plan was edited by hand; put changes in an overlay and run olmops plan", want, got)}
}

// manifestNames lists the files under dir but file, relative to dir, in
// the order ManifestsDigest hashes them. That is sorted full paths, not
// WalkDir's order: "a.yaml" sorts before "a/b.yaml".
func manifestNames(fsys fs.FS, dir, file string) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case e.IsDir() || p == file:
			return nil
		case !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0:
			return fmt.Errorf("%s: not a regular file", p)
		}
		if dir != "." {
			p = strings.TrimPrefix(p, dir+"/")
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read plan manifests: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

// add hashes the file at p under name.
func (d filesDigest) add(fsys fs.FS, p, name string) error {
	f, err := fsys.Open(p)
	if err != nil {
		return fmt.Errorf("read plan manifests: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read plan manifests: %w", err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", p)
	}
	d.begin(name, info.Size())
	n, err := io.Copy(d.h, io.LimitReader(f, info.Size()+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if n != info.Size() {
		return fmt.Errorf("%s: changed while read", p)
	}
	d.end()
	return nil
}

// digestLine is the line of manifestsDigest in the plan file, 0 when it
// cannot tell.
func digestLine(fsys fs.FS, file string) int {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return 0
	}
	line := 0
	for l := range bytes.Lines(data) {
		line++
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte("manifestsDigest:")) {
			return line
		}
	}
	return 0
}
