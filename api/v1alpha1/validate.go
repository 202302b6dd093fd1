package v1alpha1

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// FieldError is a problem with one field, named by its path in the object
// ("spec.clusters[1].approval").
type FieldError struct {
	// Field is the path of the field.
	Field string
	// Msg says what is wrong.
	Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// The patterns are compiled on first use: only commands that read
// cluster intent need them, and every command paid for them at start-up.
var (
	dns1123Subdomain = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	})
	// version is major.minor[.patch][-pre][+build], with an optional v.
	version = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	})
	envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

type fieldErrors []error

func (e *fieldErrors) add(field, format string, args ...any) {
	*e = append(*e, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Validate reports every problem of a RepositoryConfig as a *FieldError, joined:
// apiVersion and kind, unique DNS-1123 catalog and cluster names, unique
// paths relative to and inside the repository, known approval, successor
// policy, forge type and escalation action, well-formed versions, catalog
// labels and namespaces as Kubernetes names them. Fields left empty for
// SetDefaults to fill are valid.
func (r *RepositoryConfig) Validate() error {
	var errs fieldErrors
	wantKind := ConfigKind
	switch r.APIVersion {
	case ConfigGroupVersion:
	case GroupVersion:
		wantKind = RepositoryKind
	default:
		errs.add("apiVersion", "must be %s, not %q", ConfigGroupVersion, r.APIVersion)
	}
	if r.Kind != wantKind {
		errs.add("kind", "must be %s, not %q", wantKind, r.Kind)
	}
	names, paths := map[string]string{}, map[string]string{}
	for i, c := range r.Spec.Catalogs {
		f := fmt.Sprintf("spec.catalogs[%d]", i)
		errs.name(f+".name", "catalog", c.Name, names)
		errs.path(f+".path", c.Path, paths)
		errs.path(f+".bundlesPath", c.BundlesPath, nil)
		if c.Source != nil {
			errs.source(f+".source", c.Source)
		}
		errs.scope(f, c)
	}
	names = map[string]string{}
	for i, c := range r.Spec.Clusters {
		f := fmt.Sprintf("spec.clusters[%d]", i)
		errs.name(f+".name", "cluster", c.Name, names)
		errs.path(f+".path", c.Path, paths)
		if c.TargetBranch != "" && !validBranch(c.TargetBranch) {
			errs.add(f+".targetBranch", "%q is not a valid branch name", c.TargetBranch)
		}
		switch c.Approval {
		case "", ApprovalAutomatic, ApprovalManual:
		default:
			errs.add(f+".approval", "must be %s or %s, not %q", ApprovalAutomatic, ApprovalManual, c.Approval)
		}
		switch c.SuccessorPolicy {
		case "", SuccessorPolicySemver, SuccessorPolicyClassic:
		default:
			errs.add(f+".successorPolicy", "must be %s or %s, not %q", SuccessorPolicySemver, SuccessorPolicyClassic, c.SuccessorPolicy)
		}
		errs.facts(f, c.ClusterFacts)
	}
	errs.promotion(r)
	if r.Spec.Forge != nil {
		errs.forge("spec.forge", r.Spec.Forge)
	}
	switch a := r.Spec.Policy.Escalations.OnAutomatic; a {
	case "", EscalationAllow, EscalationManual, EscalationDeny:
	default:
		errs.add("spec.policy.escalations.onAutomatic", "must be %s, %s or %s, not %q", EscalationAllow, EscalationManual, EscalationDeny, a)
	}
	return errors.Join(errs...)
}

// Validate reports malformed versions as *FieldError, joined.
func (c *ClusterFacts) Validate() error {
	var errs fieldErrors
	errs.facts("", *c)
	return errors.Join(errs...)
}

func (e *fieldErrors) facts(prefix string, c ClusterFacts) {
	if prefix != "" {
		prefix += "."
	}
	if c.KubernetesVersion != "" && !version().MatchString(c.KubernetesVersion) {
		e.add(prefix+"kubernetesVersion", "%q is not a version like 1.33.2", c.KubernetesVersion)
	}
	if c.OpenShiftVersion != "" && !version().MatchString(c.OpenShiftVersion) {
		e.add(prefix+"openshiftVersion", "%q is not a version like 4.20.3", c.OpenShiftVersion)
	}
}

func (e *fieldErrors) name(field, what, name string, seen map[string]string) {
	switch {
	case name == "":
		e.add(field, "%s name is required", what)
		return
	case len(name) > 253 || !dns1123Subdomain().MatchString(name):
		e.add(field, "%s name %q must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')", what, name)
	}
	if first, dup := seen[name]; dup {
		e.add(field, "%s name %q is already used by %s", what, name, first)
		return
	}
	seen[name] = field
}

// path checks a repo-relative path; seen (when not nil) catches two entries
// sharing a folder.
func (e *fieldErrors) path(field, p string, seen map[string]string) {
	if p == "" {
		return
	}
	if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
		e.add(field, "%q must be a slash-separated path relative to the repository root, without . or .. elements", p)
		return
	}
	if seen == nil {
		return
	}
	if first, dup := seen[p]; dup {
		e.add(field, "path %q is already used by %s", p, first)
		return
	}
	seen[p] = field
}

func (e *fieldErrors) forge(f string, fg *Forge) {
	switch fg.Type {
	case ForgeGitHub:
		if fg.Owner == "" {
			e.add(f+".owner", "is required for a github forge")
		}
		if fg.Repo == "" {
			e.add(f+".repo", "is required for a github forge")
		}
	case ForgeGit:
	case "":
		e.add(f+".type", "is required (%s or %s)", ForgeGitHub, ForgeGit)
	default:
		e.add(f+".type", "must be %s or %s, not %q", ForgeGitHub, ForgeGit, fg.Type)
	}
	if fg.BaseURL != "" {
		u, err := url.Parse(fg.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			e.add(f+".baseURL", "%q must be an absolute http(s) URL", fg.BaseURL)
		}
	}
	if fg.TokenSecret != nil && fg.TokenSecret.Name == "" {
		e.add(f+".tokenSecret.name", "is required")
	}
	if fg.TokenEnv != "" && !envName().MatchString(fg.TokenEnv) {
		e.add(f+".tokenEnv", "%q is not an environment variable name", fg.TokenEnv)
	}
}

// validBranch applies the rules of git check-ref-format to a branch name.
func validBranch(b string) bool {
	if strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".") || strings.HasSuffix(b, ".lock") || b == "@" ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") ||
		strings.Contains(b, "/.") || strings.HasPrefix(b, ".") {
		return false
	}
	for _, r := range b {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	return true
}
