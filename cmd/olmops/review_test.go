package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// reviewRepo is the example repository as olmops keeps it, its plans
// committed (olmops plan, then the Manual plan's proposal merged), with
// the branch pr checked out for a test to change and commit.
func reviewRepo(t *testing.T) string {
	t.Helper()
	dir := exampleRepo(t)
	if out, errOut, code := runCLI(t, "plan", "--repo", dir); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	gittest.Git(t, dir, "merge", "--quiet", "--ff-only", "olmops/prod-east/etcd-system/etcd")
	gittest.Git(t, dir, "checkout", "--quiet", "-b", "pr")
	return dir
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	gittest.Git(t, dir, "add", "--all")
	gittest.Git(t, dir, "commit", "--quiet", "-m", msg)
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFile replaces the first n occurrences of old (all when n < 0),
// failing when old is absent.
func editFile(t *testing.T, dir, name, old, new string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", name, old)
	}
	writeFile(t, dir, name, strings.Replace(string(data), old, new, n))
}

const (
	etcdCatalogFile = "catalogs/operatorhub/etcd/catalog.yaml"
	acmeCatalogFile = "catalogs/internal/acme-db/catalog.yaml"
)

var bundleData = regexp.MustCompile(`(?m)^(\s+data: )(\S+)$`)

// addEtcdBundle adds etcdoperator.v<version> to the stable channel of the
// example etcd catalog: a copy of v0.9.4 that replaces it and whose
// skipRange covers every earlier bundle, as real catalogs ship a patch.
func addEtcdBundle(t *testing.T, dir, version string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, etcdCatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	cat := string(data)
	start := strings.Index(cat, "schema: olm.bundle\npackage: etcd\nname: etcdoperator.v0.9.4\n")
	end := strings.Index(cat[start:], "\n---\n")
	doc := bundleData.ReplaceAllStringFunc(cat[start:start+end+1], func(line string) string {
		m := bundleData.FindStringSubmatch(line)
		raw, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatal(err)
		}
		return m[1] + base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(raw), "0.9.4", version)))
	})
	doc = strings.ReplaceAll(doc, "0.9.4", version)
	anchor := "    skipRange: '>=0.9.0 <0.9.4'\n"
	i := strings.Index(cat, anchor) + len(anchor) // the stable channel comes first
	entry := fmt.Sprintf("  - name: etcdoperator.v%s\n    replaces: etcdoperator.v0.9.4\n    skipRange: '>=0.9.0 <%s'\n", version, version)
	writeFile(t, dir, etcdCatalogFile, cat[:i]+entry+cat[i:]+"---\n"+doc)
}

const acmeCache = `---
schema: olm.package
name: acme-cache
defaultChannel: stable
---
schema: olm.channel
package: acme-cache
name: stable
entries:
  - name: acme-cache.v0.1.0
  - name: acme-cache.v0.2.0
    replaces: acme-cache.v0.1.0
---
schema: olm.bundle
package: acme-cache
name: acme-cache.v0.1.0
image: registry.acme.example/platform/acme-cache-bundle:v0.1.0
properties:
  - type: olm.package
    value: {packageName: acme-cache, version: 0.1.0}
---
schema: olm.bundle
package: acme-cache
name: acme-cache.v0.2.0
image: registry.acme.example/platform/acme-cache-bundle:v0.2.0
properties:
  - type: olm.package
    value: {packageName: acme-cache, version: 0.2.0}
`

// escalate adds an overlay binding staging's etcd (Automatic) to
// cluster-admin, under the escalation policy onAutomatic ("" for none).
func escalate(t *testing.T, dir, onAutomatic string) {
	t.Helper()
	writeFile(t, dir, "clusters/staging/overlays/etcd/kustomization.yaml", "resources: [binding.yaml]\n")
	writeFile(t, dir, "clusters/staging/overlays/etcd/binding.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: etcd-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: etcd-operator, namespace: etcd-system}]
`)
	if onAutomatic != "" {
		editFile(t, dir, "olmops.yaml", "\n  clusters:\n", "\n  policy:\n    escalations: {onAutomatic: "+onAutomatic+"}\n  clusters:\n", 1)
	}
}

// commitEscalatedPlan is the way around the planner's escalation gate:
// the overlay and the plan olmops plan makes for it, committed together,
// so that the plan check finds the plan current. With deny, the base's
// olmops.yaml (and so the head's) denies escalations on Automatic
// subscriptions.
func commitEscalatedPlan(t *testing.T, dir string, deny bool) {
	t.Helper()
	// Planned where the planner looks, the target branch, then moved to
	// the pull request's branch.
	base := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main"))
	gittest.Git(t, dir, "checkout", "--quiet", "main")
	escalate(t, dir, "")
	commitAll(t, dir, "overlay")
	if out, errOut, code := runCLI(t, "plan", "--repo", dir, "--cluster", "staging"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	gittest.Git(t, dir, "checkout", "--quiet", "pr")
	gittest.Git(t, dir, "reset", "--quiet", "--hard", "main")
	gittest.Git(t, dir, "branch", "--force", "main", base)
	if deny {
		gittest.Git(t, dir, "checkout", "--quiet", "main")
		editFile(t, dir, "olmops.yaml", "\n  clusters:\n", "\n  policy:\n    escalations: {onAutomatic: Deny}\n  clusters:\n", 1)
		commitAll(t, dir, "deny escalations")
		gittest.Git(t, dir, "checkout", "--quiet", "pr")
		gittest.Git(t, dir, "merge", "--quiet", "--no-edit", "main")
	}
	writeFile(t, dir, "NOTES.md", "escalation\n") // something for the case's own commit
}

// reviewCases are pull requests on reviewRepo.
var reviewCases = []struct {
	name   string
	change func(t *testing.T, dir string)
	args   []string
	code   int
	// text are lines the text output must have.
	text []string
}{
	{"catalog broken", func(t *testing.T, dir string) {
		editFile(t, dir, etcdCatalogFile, "defaultChannel: stable", "defaultChannel: beta", 1)
	}, nil, exitFindings, []string{
		`  new: catalogs/operatorhub/etcd/catalog.yaml:2: catalog operatorhub, package etcd: invalid package "etcd": default channel "beta" not found in channels list`,
	}},
	{"package added", func(t *testing.T, dir string) {
		writeFile(t, dir, "catalogs/internal/acme-cache/catalog.yaml", acmeCache)
	}, nil, exitOK, []string{
		"  internal/acme-cache (added): 1 channel added",
	}},
	{"channel head moved", func(t *testing.T, dir string) {
		addEtcdBundle(t, dir, "0.9.5")
	}, nil, exitOK, []string{
		"  operatorhub/etcd (changed): head of stable moved etcdoperator.v0.9.4 → etcdoperator.v0.9.5; 1 entry added; 4 edges added",
		"  prod-east/etcd-system/etcd: 0.9.4 → 0.9.5, Manual, a pull request will be opened",
	}},
	{"bundle deprecated", func(t *testing.T, dir string) {
		editFile(t, dir, etcdCatalogFile, "entries:\n  - reference:\n", "entries:\n  - reference:\n      schema: olm.bundle\n      name: etcdoperator.v0.9.4\n    message: etcdoperator.v0.9.4 leaks memory; stay on 0.9.2.\n  - reference:\n", 1)
	}, []string{"--fail-on-warnings"}, exitFindings, []string{
		"  operatorhub/etcd (changed): bundle etcdoperator.v0.9.4 deprecated",
	}},
	{"subscription made unsatisfiable", func(t *testing.T, dir string) {
		editFile(t, dir, acmeCatalogFile, `versionRange: ">=0.9.2 <0.11.0"`, `versionRange: ">=2.0.0"`, -1)
	}, nil, exitFindings, []string{
		"  prod-east/etcd-system/acme-db: 1.1.0 → does not resolve",
		"    constraints not satisfiable:",
	}},
	{"plan stale", func(t *testing.T, dir string) {
		editFile(t, dir, "clusters/prod-east/subscriptions/acme-db.yaml", "  installPlanApproval: Automatic\n", "  installPlanApproval: Automatic\n  config:\n    env:\n      - {name: LOG_LEVEL, value: debug}\n", 1)
	}, nil, exitOK, []string{
		"Plans (checked: prod-east):",
		// acme-db needs etcd, whose upgrade waits in its proposal: the
		// refresh rides in that proposal (docs/resolver-semantics.md).
		"  prod-east/etcd-system/acme-db: etcd 0.9.2 → 0.9.4 (prod-east/etcd-system): the committed plan is stale or missing (Refresh); olmops plan updates it after the merge",
	}},
	{"plan edited by hand", func(t *testing.T, dir string) {
		editFile(t, dir, "clusters/staging/plans/etcd-system/etcd/manifests/deployment-etcd-operator.yaml", "replicas: 1", "replicas: 3", 1)
	}, nil, exitFindings, []string{
		"Plans (checked: staging):",
		"this pull request changes the plan, but it does not match its inputs (Refresh)",
	}},
	{"overlay escalates", func(t *testing.T, dir string) {
		escalate(t, dir, "")
	}, nil, exitOK, []string{
		"the committed plan is stale or missing (Refresh); olmops plan updates it after the merge; it grants more power: ClusterRoleBinding etcd-admin binds the built-in role cluster-admin",
	}},
	{"overlay escalation held", func(t *testing.T, dir string) {
		escalate(t, dir, "Manual")
	}, nil, exitOK, []string{
		"it grants more power: ClusterRoleBinding etcd-admin binds the built-in role cluster-admin (olmops.yaml's escalation policy proposes it for approval although the subscription is Automatic)",
	}},
	{"overlay escalation denied", func(t *testing.T, dir string) {
		escalate(t, dir, "Deny")
	}, nil, exitFindings, []string{
		"  cluster staging cannot be planned (new): cluster staging, namespace etcd-system: clusters/staging/subscriptions/etcd.yaml:2: ClusterExtension etcd-system/etcd: olmops.yaml policy.escalations.onAutomatic is Deny, and this Automatic change grants: ClusterRoleBinding etcd-admin binds the built-in role cluster-admin",
	}},
	{"escalating plan committed", func(t *testing.T, dir string) {
		commitEscalatedPlan(t, dir, false)
	}, nil, exitOK, []string{
		"More power, committed by this change:",
		"this pull request commits a plan of an Automatic subscription that grants more power: ClusterRoleBinding etcd-admin binds the built-in role cluster-admin",
	}},
	{"escalating plan committed denied", func(t *testing.T, dir string) {
		commitEscalatedPlan(t, dir, true)
	}, nil, exitFindings, []string{
		"olmops.yaml denies that (spec.policy.escalations.onAutomatic: Deny)",
	}},
	{"head does not parse", func(t *testing.T, dir string) {
		writeFile(t, dir, "olmops.yaml", "spec: [\n")
		writeFile(t, dir, "catalogs/internal/acme-db/catalog.yaml", "{{{\n")
	}, nil, exitFindings, []string{
		"  new: olmops.yaml:1: olmops.yaml: invalid YAML:",
		"  impact not computed: olmops.yaml does not load at the head",
	}},
}

func TestReview(t *testing.T) {
	for _, tc := range reviewCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := reviewRepo(t)
			tc.change(t, dir)
			commitAll(t, dir, tc.name)
			hashes := strings.NewReplacer(
				strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main"))[:12], "<base>",
				strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "pr"))[:12], "<head>")
			run := func(format string) string {
				t.Helper()
				args := append([]string{"review", "--repo", dir, "--base", "main", "--head", "pr", "-o", format}, tc.args...)
				out, errOut, code := runCLI(t, args...)
				if code != tc.code {
					t.Errorf("-o %s: exit %d, want %d\n%s%s", format, code, tc.code, out, errOut)
				}
				return hashes.Replace(out)
			}
			text := run("text")
			for _, want := range tc.text {
				if !strings.Contains(text, want) {
					t.Errorf("text output lacks %q:\n%s", want, text)
				}
			}
			var decoded struct {
				Summary  string `json:"summary"`
				Findings []struct {
					Severity string `json:"severity"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(run("json")), &decoded); err != nil || decoded.Summary == "" {
				t.Errorf("-o json: %v, %+v", err, decoded)
			}
			name := strings.ReplaceAll(tc.name, " ", "-")
			goldenReview(t, name+".github.txt", run("github"))
			goldenReview(t, name+".md", run("markdown"))
		})
	}
}

// goldenReview compares got with testdata/review/name, rewriting it with
// -update.
func goldenReview(t *testing.T, name, got string) {
	t.Helper()
	golden(t, filepath.Join("..", "review", name), got)
}

// A head with 70 new errors gets GitHub's caps: its first 10 errors,
// then one notice counting what was left out.
func TestReviewAnnotationCaps(t *testing.T) {
	dir := exampleRepo(t)
	gittest.Git(t, dir, "checkout", "--quiet", "-b", "pr")
	var cat strings.Builder
	cat.WriteString("---\nschema: olm.package\nname: many\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: many\nname: stable\nentries:\n  - name: many.v1.0.0\n")
	for i := range 71 {
		fmt.Fprintf(&cat, "---\nschema: olm.bundle\npackage: many\nname: many.v1.0.%d\nimage: example.com/many-bundle:v1.0.%d\nproperties:\n  - type: olm.package\n    value: {packageName: many, version: 1.0.%d}\n", i, i, i)
	}
	writeFile(t, dir, "catalogs/internal/many/catalog.yaml", cat.String())
	commitAll(t, dir, "70 bundles in no channel")
	out, errOut, code := runCLI(t, "review", "--repo", dir, "--base", "main", "--head", "pr", "-o", "github")
	if code != exitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var errs, notices []string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "::error "):
			errs = append(errs, line)
		case strings.HasPrefix(line, "::notice "):
			notices = append(notices, line)
		case strings.HasPrefix(line, "::"):
			t.Errorf("unexpected command %s", line)
		}
	}
	if len(errs) != 10 || !strings.Contains(errs[0], "line=20,") || !strings.Contains(errs[9], `"many.v1.0.10"`) {
		t.Errorf("%d errors, want the first 10 in file order:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	want := "::notice title=olmops review::60 more annotations left out (60 errors): GitHub shows at most 10 of each type per step and 50 per job"
	if len(notices) != 1 || !strings.HasPrefix(notices[0], want) {
		t.Errorf("notices:\n%s\nwant one starting %q", strings.Join(notices, "\n"), want)
	}
	if !strings.Contains(out, `"many.v1.0.70"`) {
		t.Error("the log lacks the errors left out of the annotations")
	}
}

func TestReviewUsage(t *testing.T) {
	dir := exampleRepo(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GITHUB_REPOSITORY", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--head", "main"}, "--base and --head"},
		{[]string{"--base", "nope", "--head", "main"}, `"nope"`},
		{[]string{"--base", "main", "--head", "0123456789abcdef0123456789abcdef01234567"}, "no such revision"},
		{[]string{"--base", "main", "-o", "xml"}, "invalid --output"},
		{[]string{"--base", "main", "--plans", "some"}, "invalid --plans"},
		{[]string{"--base", "main", "--cluster", "nope"}, `cluster "nope"`},
		{[]string{"--base", "main", "--post-status", "--github-repo", "acme/fleet"}, "$GITHUB_TOKEN"},
		{[]string{"--base", "main", "--repo", t.TempDir()}, "gitsource: open"},
	} {
		args := append([]string{"review", "--repo", dir}, tc.args...)
		out, errOut, code := runCLI(t, args...)
		if code != exitError || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.args, code, exitError, tc.want, out, errOut)
		}
	}
	t.Setenv("GITHUB_TOKEN", "t0ken")
	if _, errOut, code := runCLI(t, "review", "--repo", dir, "--base", "main", "--post-status"); code != exitError || !strings.Contains(errOut, "OWNER/REPO") {
		t.Errorf("--post-status without a repository: exit %d\n%s", code, errOut)
	}
}
