package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what `olmops version` reports.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// readBuildInfo says which olmops this is. The Makefile stamps main.version
// with -ldflags; a binary from `go install …@vX` carries its module
// version, and one built in a checkout its VCS revision, in the build info
// instead — so neither reports a bare "dev".
func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return buildInfoFrom(version, bi)
}

// olmopsVersion is the version written into plans, review reports and
// the API server's user agent: the one `olmops version` prints.
func olmopsVersion() string { return readBuildInfo().Version }

func buildInfoFrom(stamped string, bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: stamped, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; b.Version == "dev" && v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) String() string {
	return fmt.Sprintf("olmops %s (%s %s)", b.Version, b.GoVersion, b.Platform)
}

type versionOptions struct {
	streams
	Output string
}

func newVersionCmd(s streams) *cobra.Command {
	opts := &versionOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the olmops version",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return versionRun(opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	return cmd
}

func versionRun(opts *versionOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml"); err != nil {
		return err
	}
	b := readBuildInfo()
	switch opts.Output {
	case "json", "yaml":
		return encode(opts.Out, opts.Output, b)
	}
	_, err := fmt.Fprintln(opts.Out, b)
	return err
}
