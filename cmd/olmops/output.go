package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// addOutputFlag registers -o/--output on cmd, formats[0] its default, and
// completes its values, as kubectl and flux do.
func addOutputFlag(cmd *cobra.Command, p *string, formats ...string) {
	cmd.Flags().StringVarP(p, "output", "o", formats[0], "output format: "+orList(formats))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// orList is "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// structured reports whether format is one encode writes.
func structured(format string) bool { return format == "json" || format == "yaml" }

// encode writes v as indented JSON or, for "yaml", as the same document in
// YAML.
func encode(w io.Writer, format string, v any) error {
	return writeAs(w, format, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// writeAs writes what writeJSON writes or, for "yaml", the same document
// converted to YAML: one encoding, so both carry the same field names.
func writeAs(w io.Writer, format string, writeJSON func(io.Writer) error) error {
	if format != "yaml" {
		return writeJSON(w)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf); err != nil {
		return err
	}
	data, err := yaml.JSONToYAML(buf.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
