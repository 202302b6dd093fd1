package v1alpha1

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Load reads olmops.yaml strictly: unknown fields, wrong types and every
// Validate problem are reported at once, each an *Error at its line. It does
// not fill defaults; call SetDefaults.
func Load(path string, data []byte) (*RepositoryConfig, error) {
	r := &RepositoryConfig{}
	d := decodeFile(path, ConfigKind, data, r)
	if !d.decoded() {
		if len(d.errs) == 0 {
			return nil, &Error{Pos: Pos{File: path}, Msg: "file is empty"}
		}
		return nil, d.result(nil)
	}
	if err := d.result(r.Validate()); err != nil {
		return nil, err
	}
	return r, nil
}

// LoadCluster reads a cluster's cluster.yaml strictly. An empty file gives
// empty facts.
func LoadCluster(path string, data []byte) (*ClusterFacts, error) {
	c := &ClusterFacts{}
	d := decodeFile(path, "cluster facts", data, c)
	var verr error
	if d.decoded() {
		verr = c.Validate()
	}
	if err := d.result(verr); err != nil {
		return nil, err
	}
	return c, nil
}

// Defaults returns the RepositoryConfig a repo without olmops.yaml implies:
// every folder under catalogs/ is a catalog of priority 0, every folder
// under clusters/ a cluster, with defaults filled for checkedOutBranch.
// Missing catalogs/ or clusters/ folders give no entries; folders whose
// names start with a dot are skipped. Validate the result: a folder name may
// not be a valid catalog or cluster name.
func Defaults(repoFS fs.FS, checkedOutBranch string) (*RepositoryConfig, error) {
	r := &RepositoryConfig{TypeMeta: TypeMeta{APIVersion: ConfigGroupVersion, Kind: ConfigKind}}
	catalogs, err := subdirs(repoFS, CatalogsDir)
	if err != nil {
		return nil, err
	}
	for _, name := range catalogs {
		r.Spec.Catalogs = append(r.Spec.Catalogs, Catalog{Name: name})
	}
	clusters, err := subdirs(repoFS, ClustersDir)
	if err != nil {
		return nil, err
	}
	for _, name := range clusters {
		r.Spec.Clusters = append(r.Spec.Clusters, Cluster{Name: name})
	}
	r.SetDefaults(checkedOutBranch)
	return r, nil
}

func subdirs(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// SetDefaults fills what olmops.yaml may leave out: catalog and cluster
// paths (catalogs/<name>, clusters/<name>), target branches
// (checkedOutBranch), approval (Automatic), successor policy (Semver), the
// Secret key of the forge token (token), apiVersion and kind.
func (r *RepositoryConfig) SetDefaults(checkedOutBranch string) {
	if r.APIVersion == "" {
		r.APIVersion = ConfigGroupVersion
	}
	if r.Kind == "" {
		r.Kind = ConfigKind
	}
	for i := range r.Spec.Catalogs {
		c := &r.Spec.Catalogs[i]
		if c.Path == "" {
			c.Path = path.Join(CatalogsDir, c.Name)
		}
	}
	for i := range r.Spec.Clusters {
		c := &r.Spec.Clusters[i]
		if c.Path == "" {
			c.Path = path.Join(ClustersDir, c.Name)
		}
		if c.TargetBranch == "" {
			c.TargetBranch = checkedOutBranch
		}
		if c.Approval == "" {
			c.Approval = ApprovalAutomatic
		}
	}
	if f := r.Spec.Forge; f != nil && f.TokenSecret != nil && f.TokenSecret.Key == "" {
		f.TokenSecret.Key = "token"
	}
}

// MergeFacts fills the facts the cluster's entry leaves empty from its
// cluster.yaml. A fact given differently in both places is an error.
func (c *Cluster) MergeFacts(f ClusterFacts) error {
	var errs []error
	merge := func(field string, dst *string, src string) {
		switch {
		case src == "" || *dst == src:
		case *dst == "":
			*dst = src
		default:
			errs = append(errs, fmt.Errorf("cluster %q: %s is %q in %s but %q in %s", c.Name, field, *dst, RepositoryFile, src, ClusterFile))
		}
	}
	merge("kubernetesVersion", &c.KubernetesVersion, f.KubernetesVersion)
	merge("openshiftVersion", &c.OpenShiftVersion, f.OpenShiftVersion)
	return errors.Join(errs...)
}

// ReadFacts merges the cluster's cluster.yaml, in its folder of fsys, into
// its entry (see MergeFacts). A cluster without cluster.yaml keeps its
// entry's facts. Errors name the file.
func (c *Cluster) ReadFacts(fsys fs.FS) error {
	file := path.Join(c.Path, ClusterFile)
	data, err := fs.ReadFile(fsys, file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	facts, err := LoadCluster(file, data)
	if err != nil {
		return err
	}
	if err := c.MergeFacts(*facts); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// ReadRepository reads olmops.yaml at the root of fsys strictly (see
// Load), or the defaults a repository without one implies, for branch (the
// branch read).
func ReadRepository(fsys fs.FS, branch string) (*RepositoryConfig, error) {
	data, err := fs.ReadFile(fsys, RepositoryFile)
	if errors.Is(err, fs.ErrNotExist) {
		repo, err := Defaults(fsys, branch)
		if err != nil {
			return nil, err
		}
		return repo, repo.Validate()
	}
	if err != nil {
		return nil, err
	}
	repo, err := Load(RepositoryFile, data)
	if err != nil {
		return nil, err
	}
	repo.SetDefaults(branch)
	return repo, nil
}
