// Command image builds the olmops container image without a daemon: one
// layer holding the static binary of each platform, no base image, a
// numeric non-root user and OCI labels. It pushes the multi-platform index
// to --push, or writes it as an OCI image layout to --layout. The same
// binaries and --created give the same digest. `make image` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	var s spec
	var bins, push, dir, created string
	fs.StringVar(&bins, "binary", "", "PLATFORM=FILE,... the olmops binary of each platform, e.g. linux/amd64=bin/linux_amd64/olmops")
	fs.StringVar(&s.Version, "version", "dev", "the version label")
	fs.StringVar(&s.Revision, "revision", "", "the source revision label")
	fs.StringVar(&s.Source, "source", "", "the source repository label")
	fs.StringVar(&created, "created", os.Getenv("SOURCE_DATE_EPOCH"), "creation time, Unix seconds (default SOURCE_DATE_EPOCH, else 0)")
	fs.StringVar(&push, "push", "", "push the index to this reference")
	fs.StringVar(&dir, "layout", "", "write the index as an OCI image layout into this folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (push == "") == (dir == "") {
		return fmt.Errorf("give exactly one of --push and --layout")
	}
	var err error
	if s.Binaries, err = parseBinaries(bins); err != nil {
		return err
	}
	if s.Created, err = parseCreated(created); err != nil {
		return err
	}
	idx, err := build(s)
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if push != "" {
		ref, err := name.ParseReference(push)
		if err != nil {
			return err
		}
		if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return err
		}
		fmt.Printf("%s@%s\n", ref.Context(), digest)
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if _, err := layout.Write(dir, idx); err != nil {
		return err
	}
	fmt.Printf("%s (OCI layout) %s\n", dir, digest)
	return nil
}

func parseBinaries(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		p, file, ok := strings.Cut(kv, "=")
		if !ok || p == "" || file == "" {
			return nil, fmt.Errorf("--binary %q: want PLATFORM=FILE,...", s)
		}
		out[p] = file
	}
	return out, nil
}

func parseCreated(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("--created %q: want Unix seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}
