#!/usr/bin/env bash
# Side by side: olmops's resolver benchmarks and OLM classic's resolver
# (hack/olmbench) on the PEERS.md workloads, interleaved round by round so
# both see the same load, then the medians of each figure.
#   hack/resolver-vs-olm.sh [rounds]      (default 5)
# Wall times on a shared machine measure the queue for a core as much as
# the work: compare the cpu figures (user+system time of the process
# during the timed part), and read the load average beside them.
set -euo pipefail
export GOTOOLCHAIN=local
rounds=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OLMBENCH_DIR=${OLMBENCH_DIR:-$work/olmbench}
mkdir -p "$OLMBENCH_DIR"
cd "$root"
nice -n 10 go test -c -o "$work/resolver.test" ./resolver/
# OLM resolves the namespaces olmops's benchmark resolves, with the same
# bundles installed, and compares its answers with olmops's (DIFF lines).
(cd resolver && "$work/resolver.test" -test.run '^$' -test.bench 'ResolveNamespace$' -test.benchtime 1x \
  -olmbench.workloads "$work/workloads.json") >/dev/null
# The first olmbench run builds it and finds the largest namespace that
# resolves for OLM (minutes), to check it against olmops's; later rounds
# reuse both.
"$root/hack/olmbench.sh" -reps 0 -sets "$OLMBENCH_DIR/sets.json" -workloads "$work/workloads.json" | { grep '^NOTE' || true; }
for i in $(seq "$rounds"); do
  echo "# round $i load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd resolver && "$work/resolver.test" -test.run '^$' -test.benchtime 20x -test.count 1 -test.benchmem \
    -test.bench 'ResolveEachAlone|ResolveNamespace$') | grep '^Benchmark'
  "$root/hack/olmbench.sh" -reps 1 -sets "$OLMBENCH_DIR/sets.json" -workloads "$work/workloads.json" | grep -E '^(RESULT|DIFF|NOTE)'
done | tee "$work/raw.txt"
echo "# medians of $rounds rounds"
awk '
  /^Benchmark/ { name=$1; for (i=3; i<NF; i++) if ($(i+1) ~ /\/op$|ms\/package$/) { v[name" "$(i+1)]=v[name" "$(i+1)]" "$i } }
  /^RESULT/ { name=$2" "$3; for (i=4; i<=NF; i++) { split($i, kv, "="); if (kv[1] ~ /_ms$/) v[name" "kv[1]]=v[name" "kv[1]]" "kv[2] } }
  END {
    # POSIX awk (mawk has no asort): an insertion sort of a few values.
    for (k in v) {
      n=split(substr(v[k],2), a, " ")
      for (i=2; i<=n; i++) { x=a[i]+0; for (j=i-1; j>=1 && a[j]+0>x; j--) a[j+1]=a[j]; a[j+1]=x }
      printf "%s %s\n", k, a[int((n+1)/2)]
    }
  }
' "$work/raw.txt" | sort
