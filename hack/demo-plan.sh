#!/usr/bin/env bash
# The planning part of make demo: a fresh `git init` of examples/, planned,
# a Manual plan approved with a git merge, planned again.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/. "$work"
cd "$work"
git() { command git -c user.name=demo -c user.email=demo@example.com "$@"; }
git init --quiet --initial-branch=main
git add --all
git commit --quiet -m "desired state"

echo "=== olmops plan --repo \$(git init of examples) ==="
"$bin" plan --repo .
echo
echo "=== git log --oneline --branches (main and the plan branch) ==="
git log --oneline --branches
echo
echo "=== the Automatic staging plan on main: clusters/staging/plans/etcd-system/etcd/ ==="
ls clusters/staging/plans/etcd-system/etcd/manifests
sed -n '1,40p' clusters/staging/plans/etcd-system/etcd/installplan.yaml
echo
echo "=== approve the Manual prod-east plan: git merge olmops/prod-east/etcd-system/etcd ==="
git merge --quiet --no-edit olmops/prod-east/etcd-system/etcd
echo
echo "=== olmops plan again: Classic moves etcd 0.9.2 -> 0.9.4, proposed on the same branch ==="
"$bin" plan --repo .
echo
echo "=== olmops plan --check --cluster staging (exit 0: committed plans are current) ==="
"$bin" plan --repo . --check --cluster staging
