// Command olmops runs Operator Lifecycle Manager through Git: it validates
// file-based catalogs, lists and graphs what they hold, and (as the project
// grows) resolves, plans and applies operator upgrades.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
