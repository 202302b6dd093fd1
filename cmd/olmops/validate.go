package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/review"
)

type validateOptions struct {
	streams
	Output string
	Dirs   []string
}

func newValidateCmd(s streams) *cobra.Command {
	opts := &validateOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "validate DIR...",
		Short: "Validate file-based catalogs the way opm validate does",
		Long: `Validate checks each DIR as one file-based catalog, with the rules of
opm validate, and reports every problem with its file and line. Warnings
follow: what opm accepts without a word but a person should see (a key
written twice, whose last value is used as opm uses it; a CEL constraint
that does not compile). They change neither the verdict nor the exit code.

Exit codes: 0 every catalog is valid, 1 problems were found, 2 usage or I/O
error (for example a DIR that does not exist).`,
		Example: `  olmops validate catalogs/operatorhub catalogs/internal
  olmops validate -o github catalogs/*   # annotations in GitHub Actions`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Dirs = a
			return validateRun(cmd.Context(), opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml", "github")
	return cmd
}

// finding is one problem as validate reports it.
type finding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Message string `json:"message"`
}

func validateRun(ctx context.Context, opts *validateOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml", "github"); err != nil {
		return err
	}
	// Every DIR must exist before anything is printed.
	for _, dir := range opts.Dirs {
		if err := checkDir(dir); err != nil {
			return err
		}
	}
	findings, warnings := []finding{}, []finding{}
	invalid := 0
	for _, dir := range opts.Dirs {
		ps, ws, err := validateDir(ctx, dir)
		if err != nil {
			return err
		}
		if len(ps) > 0 {
			invalid++
		}
		for _, p := range ps {
			findings = append(findings, toFinding(dir, p))
		}
		for _, w := range ws {
			warnings = append(warnings, toFinding(dir, w))
		}
	}
	if err := writeFindings(opts.Out, opts.Output, findings, warnings); err != nil {
		return err
	}
	if invalid == 0 {
		return nil
	}
	if opts.Output == "text" {
		fmt.Fprintf(opts.Err, "%d problem(s) in %d of %d catalog(s)\n", len(findings), invalid, len(opts.Dirs))
	}
	return errFindings
}

// validateDir returns the problems of the catalog in dir (the files that do
// not decode, or else what Validate finds) and its warnings: what opm
// accepts but a person should see (keys written twice, CEL rules that do
// not compile).
func validateDir(ctx context.Context, dir string) (problems, warnings catalog.Problems, err error) {
	c, err := loadCatalog(ctx, dir)
	var ce *catalogError
	if errors.As(err, &ce) {
		return ce.Problems, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return c.Validate(), append(c.Warnings(), resolver.CheckCEL(c)...), nil
}

// toFinding points a problem without a file at its catalog directory, so
// every finding has somewhere to go.
func toFinding(dir string, p catalog.Problem) finding {
	f := finding{File: p.Pos.File, Line: p.Pos.Line, Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Message: p.Message}
	if f.File == "" {
		f.File = dir
	}
	if f.Message == "" && p.Err != nil {
		f.Message = p.Err.Error()
	}
	return f
}

// writeFindings writes the errors, then the warnings (which change neither
// "valid" nor the exit code).
func writeFindings(w io.Writer, format string, fs, warnings []finding) error {
	switch format {
	case "json", "yaml":
		return encode(w, format, struct {
			Valid    bool      `json:"valid"`
			Errors   []finding `json:"errors"`
			Warnings []finding `json:"warnings,omitempty"`
		}{len(fs) == 0, fs, warnings})
	case "github":
		for _, f := range fs {
			if _, err := fmt.Fprintln(w, githubAnnotation(f, review.Error)); err != nil {
				return err
			}
		}
		for _, f := range warnings {
			if _, err := fmt.Fprintln(w, githubAnnotation(f, review.Warning)); err != nil {
				return err
			}
		}
	default:
		for _, f := range fs {
			if _, err := fmt.Fprintf(w, "%s: %s\n", findingLoc(f), f.Message); err != nil {
				return err
			}
		}
		for _, f := range warnings {
			if _, err := fmt.Fprintf(w, "%s: warning: %s\n", findingLoc(f), f.Message); err != nil {
				return err
			}
		}
	}
	return nil
}

func findingLoc(f finding) string {
	if f.Line > 0 {
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// githubAnnotation formats a finding as a GitHub Actions workflow command.
func githubAnnotation(f finding, sev review.Severity) string {
	return review.Annotation{Severity: sev, File: f.File, Line: f.Line, Title: f.Package, Message: f.Message}.String()
}

// escapeGitHubProperty escapes a workflow command's property value.
func escapeGitHubProperty(s string) string { return review.EscapeProperty(s) }
