package v1alpha1

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"
)

// The values were computed by plan's filesDigest before it moved here:
// plans committed since must still verify.
func TestManifestsDigestGolden(t *testing.T) {
	tests := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"none", map[string][]byte{}, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"plan folder", map[string][]byte{
			"manifests/deployment-etcd-operator.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\n"),
			"manifests/a.yaml":                        []byte(""),
			"manifests/a/b.yaml":                      []byte("x\n"),
			"hops/01-etcdoperator.v0.9.2/serviceaccount-etcd-operator.yaml": []byte("kind: ServiceAccount\n"),
			"manifests/ünïcode.yaml":                                        []byte("\x00\xff"),
		}, "sha256:cd1d90f49d7ffbeb5e80faefd847c0a2a24e4d39f55a57aa7933e99352036d14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ManifestsDigest(tt.files); got != tt.want {
				t.Errorf("ManifestsDigest = %s, want %s", got, tt.want)
			}
		})
	}
}

const digestPlanDir = "clusters/prod-east/plans/operators/etcd"

// planFolder lays out files (relative to dir) as a plan folder with an
// installplan.yaml whose manifestsDigest is digest.
func planFolder(t *testing.T, dir string, files map[string][]byte, digest string) (fstest.MapFS, *InstallPlan) {
	t.Helper()
	p := samplePlan()
	p.Spec.ManifestsDigest = digest
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{path.Join(dir, InstallPlanFile): {Data: data}}
	if dir != "." {
		fsys["olmops.yaml"] = &fstest.MapFile{Data: []byte("outside the plan folder\n")}
	}
	for name, data := range files {
		fsys[path.Join(dir, name)] = &fstest.MapFile{Data: data}
	}
	return fsys, p
}

func sampleManifests() map[string][]byte {
	return map[string][]byte{
		"manifests/deployment-etcd-operator.yaml":                       []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: etcd-operator\n"),
		"manifests/serviceaccount-etcd-operator.yaml":                   []byte("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: etcd-operator\n"),
		"hops/01-etcdoperator.v0.9.2/deployment-etcd-operator.yaml":     []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: etcd-operator\n"),
		"hops/01-etcdoperator.v0.9.2/serviceaccount-etcd-operator.yaml": []byte("apiVersion: v1\nkind: ServiceAccount\n"),
		// WalkDir visits a/ before a.yaml; the digest sorts full paths.
		"manifests/a/b.yaml": []byte("b\n"),
		"manifests/a.yaml":   []byte("a\n"),
	}
}

func TestVerifyManifests(t *testing.T) {
	const mismatch = "the plan was edited by hand; put changes in an overlay and run olmops plan"
	tests := []struct {
		name   string
		dir    string
		change func(files map[string][]byte)
		digest func(files map[string][]byte) string // nil: of the unchanged files
		want   string                               // "" for no error
	}{
		{name: "unedited"},
		{name: "at the root", dir: "."},
		{name: "a manifest called installplan.yaml is", change: func(f map[string][]byte) {
			f["manifests/installplan.yaml"] = []byte("x\n")
		}, want: ""},
		{name: "one byte edited", change: func(f map[string][]byte) {
			f["manifests/deployment-etcd-operator.yaml"][len("apiVersion: apps/v")] = '2'
		}, want: mismatch},
		{name: "one byte edited in a hop", change: func(f map[string][]byte) {
			f["hops/01-etcdoperator.v0.9.2/serviceaccount-etcd-operator.yaml"][0] = 'A'
		}, want: mismatch},
		{name: "file added", change: func(f map[string][]byte) { f["manifests/configmap-extra.yaml"] = []byte("kind: ConfigMap\n") }, want: mismatch},
		{name: "file removed", change: func(f map[string][]byte) { delete(f, "manifests/a/b.yaml") }, want: mismatch},
		{name: "file renamed", change: func(f map[string][]byte) {
			f["manifests/c.yaml"] = f["manifests/a.yaml"]
			delete(f, "manifests/a.yaml")
		}, want: mismatch},
		{name: "no digest", digest: func(map[string][]byte) string { return "" }, want: "no manifestsDigest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = digestPlanDir
			}
			files := sampleManifests()
			digest := ManifestsDigest(files)
			if tt.digest != nil {
				digest = tt.digest(files)
			}
			if tt.change != nil {
				tt.change(files)
				if tt.want == "" {
					digest = ManifestsDigest(files)
				}
			}
			fsys, p := planFolder(t, dir, files, digest)
			err := VerifyManifests(fsys, dir, p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("VerifyManifests: %v", err)
				}
				return
			}
			var perr *Error
			if !errors.As(err, &perr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want an *Error saying %q", err, tt.want)
			}
			if want := path.Join(dir, InstallPlanFile); perr.Pos.File != want || perr.Pos.Line == 0 {
				t.Errorf("error at %s, want %s at the manifestsDigest line", perr.Pos, want)
			}
			if tt.want == mismatch && !strings.Contains(err.Error(), "manifestsDigest "+digest+" does not match the manifests (sha256:") {
				t.Errorf("error %q does not name both digests", err)
			}
		})
	}
}

func TestVerifyManifestsUnreadable(t *testing.T) {
	fsys, p := planFolder(t, digestPlanDir, sampleManifests(), ManifestsDigest(sampleManifests()))
	fsys[digestPlanDir+"/manifests/pipe"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
	if err := VerifyManifests(fsys, digestPlanDir, p); err == nil || !strings.Contains(err.Error(), digestPlanDir+"/manifests/pipe: not a regular file") {
		t.Errorf("error %v, want one naming the pipe", err)
	}
	if err := VerifyManifests(fsys, "clusters/elsewhere", p); err == nil || !strings.Contains(err.Error(), "clusters/elsewhere") {
		t.Errorf("error %v, want one naming the missing folder", err)
	}
}

// FuzzVerifyManifests checks that streaming the folder hashes what
// ManifestsDigest hashes, whatever the names and contents.
func FuzzVerifyManifests(f *testing.F) {
	f.Add("manifests/a.yaml", []byte("a\n"), []byte("b\n"))
	f.Add("manifests/a/b.yaml", []byte{}, []byte{0xff})
	f.Add("hops/01-x/ü.yaml", []byte("x"), []byte(""))
	const other = "manifests/z.yaml"
	f.Fuzz(func(t *testing.T, name string, a, b []byte) {
		if !fs.ValidPath(name) || name == "." || name == InstallPlanFile || name == other ||
			strings.HasPrefix(other, name+"/") || strings.HasPrefix(name, other+"/") {
			return
		}
		files := map[string][]byte{name: a, other: b}
		fsys, p := planFolder(t, digestPlanDir, files, ManifestsDigest(files))
		if err := VerifyManifests(fsys, digestPlanDir, p); err != nil {
			t.Errorf("files %q: %v", name, err)
		}
	})
}
