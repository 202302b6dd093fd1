package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/review"
)

func TestReviewPostStatus(t *testing.T) {
	dir := reviewRepo(t)
	srv := githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: "t0ken", GitDir: dir})
	t.Setenv("GITHUB_TOKEN", "t0ken")
	t.Setenv("GITHUB_REPOSITORY", "acme/fleet")
	t.Setenv("GITHUB_SERVER_URL", "https://github.example")
	t.Setenv("GITHUB_RUN_ID", "42")
	t.Setenv("GITHUB_API_URL", srv.URL)

	addEtcdBundle(t, dir, "0.9.5")
	commitAll(t, dir, "etcd 0.9.5")
	good := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "pr"))
	editFile(t, dir, etcdCatalogFile, "defaultChannel: stable", "defaultChannel: beta", 1)
	commitAll(t, dir, "break the catalog")
	bad := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "pr"))

	for _, tc := range []struct {
		head, state, desc, url string
		args                   []string
		code                   int
	}{
		{good, "success", "no new problems · 1 subscription to plan on 1 cluster · 1 package changed", "https://github.example/acme/fleet/actions/runs/42", nil, exitOK},
		{bad, "failure", "1 error, 0 warnings · 1 subscription to plan on 1 cluster · 1 package changed", "https://ci.example/job/7", []string{"--target-url", "https://ci.example/job/7", "--github-api-url", srv.URL + "/api/v3/"}, exitFindings},
	} {
		args := append([]string{"review", "--repo", dir, "--base", "main", "--head", tc.head, "--post-status"}, tc.args...)
		out, errOut, code := runCLI(t, args...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, tc.code, out, errOut)
		}
		sts := srv.StatusesFor(tc.head)
		if len(sts) != 1 {
			t.Fatalf("statuses on %s: %+v, want one", tc.head, sts)
		}
		st := sts[0]
		if st.Context != review.StatusContext || st.State != tc.state || st.Description != tc.desc || st.TargetURL != tc.url {
			t.Errorf("status %+v, want %s %q linking %s", st, tc.state, tc.desc, tc.url)
		}
	}
}

// actionStep is the part of action.yml the test runs.
type actionStep struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			Shell string            `json:"shell"`
			Run   string            `json:"run"`
			Env   map[string]string `json:"env"`
		} `json:"steps"`
	} `json:"runs"`
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// TestReviewAction runs the composite action's step as a runner would:
// its env with the expressions filled from a pull_request event, its run
// with bash, the action being a local checkout (uses: ./) of this tree,
// so the step builds olmops from it.
func TestReviewAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds olmops")
	}
	dir := exampleRepo(t)
	base := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	editFile(t, dir, etcdCatalogFile, "defaultChannel: stable", "defaultChannel: beta", 1)
	commitAll(t, dir, "break the catalog")
	head := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))

	run := runActionStep(t, dir, map[string]string{
		"github.action_ref":                  "", // uses: ./
		"github.event.pull_request.base.sha": base,
		"github.event.pull_request.head.sha": head,
	})
	if run.code != exitFindings {
		t.Fatalf("the step: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", run.code, exitFindings, run.stdout, run.stderr)
	}
	want := `::error file=catalogs/operatorhub/etcd/catalog.yaml,line=2,title=catalog operatorhub%2C package etcd::invalid package "etcd": default channel "beta" not found in channels list`
	if !strings.Contains(run.stdout, want+"\n") {
		t.Errorf("stdout lacks\n%s\ngot:\n%s\nstderr:\n%s", want, run.stdout, run.stderr)
	}
	if !strings.HasPrefix(run.summary, "## ❌ olmops review\n") || !strings.Contains(run.summary, "| ❌ new | `catalogs/operatorhub/etcd/catalog.yaml:2` |") {
		t.Errorf("step summary:\n%s", run.summary)
	}
	outputs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(run.outputs), "\n") {
		k, v, _ := strings.Cut(line, "=")
		outputs[k] = v
	}
	if outputs["errors"] == "" || outputs["errors"] == "0" || outputs["warnings"] == "" {
		t.Errorf("step outputs: %q, want the counts of new errors and warnings", run.outputs)
	}
	if data, err := os.ReadFile(outputs["report-path"]); err != nil || !json.Valid(data) {
		t.Errorf("report-path %q: %v, want the JSON report", outputs["report-path"], err)
	}
}

// TestReviewActionRelease runs the step at a release tag: it takes the
// release's binary when checksums.txt vouches for it, refuses it when not,
// and builds nothing either way. The stand-in binary only echoes.
func TestReviewActionRelease(t *testing.T) {
	fake := []byte("#!/bin/sh\necho released olmops \"$@\"\n")
	file := "olmops_" + runtime.GOOS + "_" + runtime.GOARCH
	sum := sha256.Sum256(fake)
	for _, tt := range []struct {
		name, checksums string
		code            int
		out             string
	}{
		{"verified", hex.EncodeToString(sum[:]) + "  " + file + "\n", 0, "released olmops review "},
		{"tampered", strings.Repeat("0", 64) + "  " + file + "\n", exitError, "does not match its checksums.txt"},
		{"not listed", hex.EncodeToString(sum[:]) + "  olmops_plan9_mips\n", exitError, "does not match its checksums.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v9.9.9/checksums.txt":
					io.WriteString(w, tt.checksums)
				case "/v9.9.9/" + file:
					w.Write(fake)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			dir := exampleRepo(t)
			head := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
			run := runActionStep(t, dir, map[string]string{
				"github.action_ref":                  "v9.9.9",
				"github.event.pull_request.base.sha": head,
				"github.event.pull_request.head.sha": head,
			}, "OLMOPS_RELEASE_URL="+srv.URL, "GOPROXY=off")
			if run.code != tt.code || !strings.Contains(run.stdout+run.stderr, tt.out) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", run.code, tt.code, tt.out, run.stdout, run.stderr)
			}
			if tt.code != 0 && strings.Contains(run.stdout, "released olmops") {
				t.Error("the unverified binary ran")
			}
		})
	}
}

// stepRun is what running the action's step left behind.
type stepRun struct {
	code                             int
	stdout, stderr, summary, outputs string
}

// runActionStep runs action.yml's step in dir with the given expression
// values (inputs take their defaults) and extra environment.
func runActionStep(t *testing.T, dir string, context map[string]string, extraEnv ...string) stepRun {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action actionStep
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || action.Runs.Steps[0].Shell != "bash" {
		t.Fatalf("action.yml: want one bash step of a composite action, got %+v", action.Runs)
	}
	step := action.Runs.Steps[0]
	context["github.token"] = ""
	context["inputs.clusters"] = "prod-east, staging"
	context["inputs.fail-on-warnings"] = "true"
	eval := func(s string) string {
		return expression.ReplaceAllStringFunc(s, func(e string) string {
			name := expression.FindStringSubmatch(e)[1]
			if v, ok := context[name]; ok {
				return v
			}
			if in, ok := action.Inputs[strings.TrimPrefix(name, "inputs.")]; ok && strings.HasPrefix(name, "inputs.") {
				return in.Default
			}
			t.Fatalf("action.yml: the test does not know the expression %s", e)
			return ""
		})
	}
	tmp := t.TempDir()
	summary, outputs := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "outputs")
	env := append(os.Environ(),
		"GITHUB_ACTION_PATH="+root, "GITHUB_WORKSPACE="+dir, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs,
		"RUNNER_TEMP="+t.TempDir(), "GITHUB_BASE_REF=main", "GITHUB_EVENT_NAME=pull_request",
	)
	for k, v := range step.Env {
		env = append(env, k+"="+eval(eval(v)))
	}
	env = append(env, extraEnv...)
	script := filepath.Join(tmp, "step.sh")
	if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	// How a runner runs shell: bash.
	cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run := stepRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	s, _ := os.ReadFile(summary)
	o, _ := os.ReadFile(outputs)
	run.summary, run.outputs = string(s), string(o)
	return run
}
