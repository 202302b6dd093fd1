// Package fleettest writes generated desired-state repositories for
// benchmarks: many clusters subscribing to real packages of the ocp-v4.20
// community catalog, so planner and review measure the same fleet.
package fleettest
