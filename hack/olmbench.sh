#!/usr/bin/env bash
# Builds hack/olmbench (OLM classic's resolver on the PEERS.md workloads)
# in a private directory with a go.mod of its own, so that olmops's module
# never depends on OLM, and runs it with the arguments given.
#   hack/olmbench.sh -reps 5 -sets "$TMPDIR/olmbench-sets.json" -workloads FILE
# FILE: olmops's namespaces and answers, from
#   go test ./resolver -run '^$' -bench 'ResolveNamespace$' -benchtime 1x -olmbench.workloads FILE
# OLMBENCH_DIR: where to build (default: a new temporary directory, removed
# afterwards); reusing one skips the module download and the build.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
root=$(cd "$(dirname "$0")/.." && pwd)
OLM_VERSION=v0.46.0
REGISTRY_VERSION=v1.73.0
API_VERSION=v0.45.0

dir=${OLMBENCH_DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
if [ ! -x "$dir/olmbench" ] || [ "$root/hack/olmbench/main.go" -nt "$dir/olmbench" ]; then
  # The build tag keeps the file out of olmops's own build; here it is the program.
  sed '/^\/\/go:build ignore$/d' "$root/hack/olmbench/main.go" >"$dir/main.go"
  (
    cd "$dir"
    [ -f go.mod ] || go mod init olmbench >/dev/null 2>&1
    go get "github.com/operator-framework/operator-lifecycle-manager@$OLM_VERSION" \
      "github.com/operator-framework/operator-registry@$REGISTRY_VERSION" \
      "github.com/operator-framework/api@$API_VERSION" >/dev/null 2>&1
    go mod tidy >/dev/null
    nice -n 10 go build -o olmbench .
  )
fi
cd "$root"
"$dir/olmbench" -catalog "$root/../shared/catalogs/ocp-v4.20" "$@"
