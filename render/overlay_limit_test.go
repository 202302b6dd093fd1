package render

import (
	"runtime"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/yamllimit/yamllimittest"
)

// aliasBomb is an overlay resource of about 500 bytes whose aliases expand
// to 9^8 (43 million) scalars: before the check, plan and review died of
// it at 12 GB.
func aliasBomb() string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n" + yamllimittest.Laughs("data")
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

func TestOverlayYAMLLimits(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string // "" when the overlay renders
	}{
		{name: "a few aliases", files: map[string]string{
			"kustomization.yaml": "resources:\n- cm.yaml\n",
			"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\ndata: {a: &v hello, b: *v}\n"}},
		{name: "alias bomb in a resource", files: map[string]string{
			"kustomization.yaml": "resources:\n- bomb.yaml\n", "bomb.yaml": aliasBomb()},
			wantErr: overlayDir + "/bomb.yaml:13: YAML aliases expand the document by more than 100000 nodes (the limit)"},
		{name: "alias bomb in an inline patch", files: map[string]string{
			"kustomization.yaml": "patches:\n- patch: |-\n" + indent(aliasBomb(), "    ")},
			wantErr: overlayDir + "/kustomization.yaml:2: YAML aliases expand the document by more than 100000 nodes (the limit)"},
		{name: "alias bomb in the kustomization", files: map[string]string{
			"kustomization.yaml": "resources: []\nx:\n" + indent(aliasBomb(), "  ")},
			wantErr: overlayDir + "/kustomization.yaml:15: YAML aliases expand"},
	}
	objs := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"}).Objects
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Overlay(objs, overlayFS(tt.files), overlayDir)
			runtime.ReadMemStats(&after)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want it to start with %q", err, tt.wantErr)
			}
			// Refused before kustomize sees it: a few MB at most, where
			// the expansion would take gigabytes.
			if got := after.TotalAlloc - before.TotalAlloc; tt.wantErr != "" && got > 16<<20 {
				t.Errorf("refusing the bomb allocated %d bytes, want < 16 MiB", got)
			}
		})
	}
}

// FuzzOverlay runs kustomize over an arbitrary kustomization and resource,
// as a pull request may write them: nothing panics, nothing outside the
// overlay folder is read, and alias bombs are refused before kustomize.
func FuzzOverlay(f *testing.F) {
	f.Add("resources:\n- r.yaml\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: &v b, c: *v}\n")
	f.Add("patches:\n- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: x}\n", "")
	f.Add("resources:\n- ../../secret.yaml\n", "")
	f.Add("resources:\n- r.yaml\n", aliasBomb())
	objs := mustRender(f, synthetic(f, nil), Options{Namespace: "ops"}).Objects
	f.Fuzz(func(t *testing.T, kustomization, resource string) {
		if len(kustomization)+len(resource) > 4<<10 {
			return
		}
		out, err := Overlay(objs, overlayFS(map[string]string{"kustomization.yaml": kustomization, "r.yaml": resource}), overlayDir)
		if err != nil {
			return
		}
		for _, o := range out {
			if o.GetName() == "leaked" {
				t.Fatal("the overlay read a file outside its folder")
			}
		}
	})
}
