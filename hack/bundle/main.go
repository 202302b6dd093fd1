// Command bundle writes the install bundle of a release: config/default
// built with kustomize into one YAML stream, the manager's image pinned to
// the release. `make dist` runs it; users apply the result with
// `kubectl apply -f install.yaml`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// managerImage is the image name config/manager's Deployment uses.
const managerImage = "ghcr.io/olmops/olmops"

func main() {
	dir := flag.String("dir", "config/default", "the kustomization to build")
	image := flag.String("image", "", "the image the manager runs, such as ghcr.io/olmops/olmops:v1.2.3 (default: as the kustomization says)")
	flag.Parse()
	out, err := build(*dir, *image)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

// build runs kustomize on dir with the manager's image set, the way
// `kustomize edit set image` would, through a kustomization of its own in
// a temporary folder so that dir is left untouched.
func build(dir, image string) ([]byte, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	top, err := os.MkdirTemp("", "olmops-bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(top)
	rel, err := filepath.Rel(top, abs) // kustomize refuses absolute roots
	if err != nil {
		return nil, err
	}
	kz := types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind}, Resources: []string{rel}}
	if image != "" {
		img := types.Image{Name: managerImage}
		img.NewName, img.NewTag, img.Digest = splitImage(image)
		kz.Images = []types.Image{img}
	}
	data, err := yaml.Marshal(kz)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(top, "kustomization.yaml"), data, 0o600); err != nil {
		return nil, err
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), top)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}
