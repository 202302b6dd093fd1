#!/usr/bin/env bash
# Builds the envtest control plane, kube-apiserver and etcd, from the
# versions pinned in tools/envtest/go.mod into the folder DEST (what
# KUBEBUILDER_ASSETS points at). DEST is complete whenever it exists: the
# binaries are built in a sibling temp folder that is renamed at the end, so
# an interrupted build leaves nothing that a later run would take as done.
set -euo pipefail

dest=${1:?usage: hack/envtest-build.sh DEST}
[ -d "$dest" ] && exit 0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Static binaries (no C toolchain needed); -mod=mod because the pins live in
# the tools module, not in a vendor folder.
export GOTOOLCHAIN=local GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0
cd "$root/tools/envtest"

kube=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
minor=${kube#v1.}
minor=${minor%%.*}
# Without these the server reports v0.0.0-master, which clients (and the
# version checks in tests) cannot compare.
ver=k8s.io/component-base/version
kubeflags="-s -w -X $ver.gitVersion=$kube -X $ver.gitMajor=1 -X $ver.gitMinor=$minor -X $ver.gitTreeState=clean"

mkdir -p "$(dirname "$dest")"
# Leftovers of killed builds; a live build is never two hours old.
find "$(dirname "$dest")" -maxdepth 1 -name "$(basename "$dest").tmp.*" -mmin +120 -exec rm -rf {} +
tmp=$(mktemp -d "$dest.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chmod 755 "$tmp"

echo "envtest: building kube-apiserver $kube and etcd $etcd into $dest (about 5 min when cold)" >&2
go build -trimpath -ldflags "$kubeflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3

got=$("$tmp/kube-apiserver" --version)
[ "$got" = "Kubernetes $kube" ] || { echo "kube-apiserver --version says \"$got\", want \"Kubernetes $kube\"" >&2; exit 1; }
"$tmp/etcd" --version >/dev/null

# A rename cannot be seen half done. mv -T (GNU) refuses to move into a
# folder that a concurrent build created meanwhile; that folder is as good.
if ! mv -T "$tmp" "$dest" 2>/dev/null; then
	[ -d "$dest" ] || mv "$tmp" "$dest"
fi
