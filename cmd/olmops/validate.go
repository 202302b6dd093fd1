package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog"
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
opm validate, and reports every problem with its file and line.

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
	findings := []finding{}
	invalid := 0
	for _, dir := range opts.Dirs {
		ps, err := validateDir(ctx, dir)
		if err != nil {
			return err
		}
		if len(ps) > 0 {
			invalid++
		}
		for _, p := range ps {
			findings = append(findings, toFinding(dir, p))
		}
	}
	if err := writeFindings(opts.Out, opts.Output, findings); err != nil {
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

// validateDir returns the problems of the catalog in dir: the files that do
// not decode, or else what Validate finds.
func validateDir(ctx context.Context, dir string) (catalog.Problems, error) {
	c, err := loadCatalog(ctx, dir)
	var ce *catalogError
	if errors.As(err, &ce) {
		return ce.Problems, nil
	}
	if err != nil {
		return nil, err
	}
	return c.Validate(), nil
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

func writeFindings(w io.Writer, format string, fs []finding) error {
	switch format {
	case "json", "yaml":
		return encode(w, format, struct {
			Valid  bool      `json:"valid"`
			Errors []finding `json:"errors"`
		}{len(fs) == 0, fs})
	case "github":
		for _, f := range fs {
			if _, err := fmt.Fprintln(w, githubAnnotation(f)); err != nil {
				return err
			}
		}
	default:
		for _, f := range fs {
			loc := f.File
			if f.Line > 0 {
				loc += ":" + strconv.Itoa(f.Line)
			}
			if _, err := fmt.Fprintf(w, "%s: %s\n", loc, f.Message); err != nil {
				return err
			}
		}
	}
	return nil
}

// githubAnnotation formats a finding as a GitHub Actions workflow command.
func githubAnnotation(f finding) string {
	return review.Annotation{Severity: review.Error, File: f.File, Line: f.Line, Title: f.Package, Message: f.Message}.String()
}

// escapeGitHubProperty escapes a workflow command's property value.
func escapeGitHubProperty(s string) string { return review.EscapeProperty(s) }
