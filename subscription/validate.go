package subscription

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The patterns are compiled on first use: only commands that read
// subscription intent need them, and every command paid for them at start-up.
var (
	dns1123Label     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })
	dns1123Subdomain = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	})
)

// Validate reports what is wrong with an intent that did not come from
// Parse (Parse already applies these rules, at the lines they are about):
// name and namespace are required DNS-1123 names, the package is required,
// and every enum holds a known value.
func (i *Intent) Validate() error {
	return errors.Join(i.validate(func(string) (Pos, bool) { return i.Pos, true })...)
}

// validate checks the intent; at gives the position of a field by its path
// in the object the intent was read from, or false to skip a field whose
// problem is already reported.
func (i *Intent) validate(at func(field string) (Pos, bool)) []error {
	var errs []error
	add := func(field, format string, args ...any) {
		if pos, ok := at(field); ok {
			errs = append(errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
		}
	}
	nsField, pkgField := "metadata.namespace", "spec.name"
	switch i.Kind {
	case KindSubscription:
	case KindClusterExtension:
		nsField, pkgField = "spec.namespace", "spec.source.catalog.packageName"
	default:
		add("kind", "kind %q is not Subscription or ClusterExtension", i.Kind)
	}
	k := string(i.Kind)
	switch {
	case i.Name == "":
		add("metadata.name", "%s metadata.name is required", k)
	case len(i.Name) > 253 || !dns1123Subdomain().MatchString(i.Name):
		add("metadata.name", "%s metadata.name %q must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')", k, i.Name)
	}
	switch {
	case i.Namespace == "":
		add(nsField, "%s %s is required", k, nsField)
	case len(i.Namespace) > 63 || !dns1123Label().MatchString(i.Namespace):
		add(nsField, "%s %s %q must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)", k, nsField, i.Namespace)
	}
	switch {
	case i.Package == "":
		add(pkgField, "%s %s (the package name) is required", k, pkgField)
	case i.Kind == KindClusterExtension && (len(i.Package) > 253 || !dns1123Subdomain().MatchString(i.Package)):
		add(pkgField, "%s %s %q must be a DNS-1123 subdomain", k, pkgField, i.Package)
	}
	approvalField := "spec.installPlanApproval"
	if i.Kind == KindClusterExtension {
		approvalField = "metadata.annotations." + AnnotationApproval
	}
	if i.Approval != "" && i.Approval != Automatic && i.Approval != Manual {
		add(approvalField, "%s %s must be Automatic or Manual, not %q", k, fieldName(approvalField), i.Approval)
	}
	if i.Policy != "" && i.Policy != Semver && i.Policy != Classic {
		add("metadata.annotations."+AnnotationSuccessorPolicy, "%s %s must be Semver or Classic, not %q", k, fieldName("metadata.annotations."+AnnotationSuccessorPolicy), i.Policy)
	}
	const ucpField = "spec.source.catalog.upgradeConstraintPolicy"
	if i.UpgradeConstraintPolicy != "" && i.UpgradeConstraintPolicy != CatalogProvided && i.UpgradeConstraintPolicy != SelfCertified {
		add(ucpField, "%s %s must be CatalogProvided or SelfCertified, not %q", k, ucpField, i.UpgradeConstraintPolicy)
	}
	return errs
}

// fieldName names a field for messages; annotations read as such.
func fieldName(field string) string {
	if a, ok := strings.CutPrefix(field, "metadata.annotations."); ok {
		return "annotation " + a
	}
	return field
}
