//go:build olmops_cli

package main

// handsOver: this build hands the cluster commands to olmops-controller,
// which the tests do not build; TestHandover and TestHandoverCompletion
// cover the hand-over with a stand-in.
const handsOver = true
