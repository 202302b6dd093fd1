//go:build !olmops_cli

package main

// handsOver: this build runs the cluster commands itself.
const handsOver = false
