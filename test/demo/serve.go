package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/olmops/olmops/test/harness"
)

// startControllers runs olmops serve against each control plane and waits
// until each is ready.
func (d *demo) startControllers(ctx context.Context) error {
	secret := make([]byte, 16)
	rand.Read(secret)
	addrs, err := harness.FreeAddrs(harness.ServeAddrs * len(d.clusters))
	if err != nil {
		return err
	}
	for i, c := range d.clusters {
		s, err := harness.StartServe(ctx, d.Olmops, c, hex.EncodeToString(secret), addrs[harness.ServeAddrs*i:harness.ServeAddrs*(i+1)])
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		d.out.command("olmops", s.Args...)
		c.Serve = s
		d.onCleanup(s.Stop)
	}
	for _, c := range d.clusters {
		if err := c.Serve.WaitReady(ctx); err != nil {
			return fmt.Errorf("%s: olmops serve: %w\n%s", c.Name, err, c.Serve.Tail(20))
		}
		d.out.line("%-9s  ready; metrics http://%s/metrics, webhook %s, log %s", c.Name, c.Serve.Metrics, c.Serve.Hook, c.Serve.Log)
	}
	return nil
}
