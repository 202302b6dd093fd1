#!/usr/bin/env bash
# The step of the olmops review GitHub Action (action.yml), kept in a file
# so that the end-to-end test runs it exactly as a runner does. action.yml
# maps its inputs and the pull request's commits onto OLMOPS_* variables.
#
# It builds olmops with the runner's Go toolchain and nothing else: from
# the action's own checkout when the action is local (uses: ./, where
# github.action_ref is empty), else with go install at the action's ref.
set -euo pipefail

base="${OLMOPS_BASE:-}"
head="${OLMOPS_HEAD:-}"
if [[ -z "$base" || -z "$head" ]]; then
	echo "::error title=olmops review::no pull request base or head: run the action on pull_request events" >&2
	exit 2
fi
repo="${OLMOPS_REPO_PATH:-.}"
bin_dir="${RUNNER_TEMP:-$(mktemp -d)}/olmops-review"
mkdir -p "$bin_dir"
# Use the runner's Go; never download a toolchain.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

if [[ -z "${OLMOPS_ACTION_REF:-}" ]]; then
	(cd "$GITHUB_ACTION_PATH" && go build -trimpath -ldflags "-s -w -X main.version=local" -o "$bin_dir/olmops" ./cmd/olmops)
else
	GOBIN="$bin_dir" go install -trimpath -ldflags "-s -w -X main.version=$OLMOPS_ACTION_REF" \
		"github.com/olmops/olmops/cmd/olmops@$OLMOPS_ACTION_REF"
fi

# actions/checkout fetches a single commit unless told otherwise: bring the
# base and head when they are missing.
for rev in "$base" "$head"; do
	if ! git -C "$repo" cat-file -e "$rev^{commit}" 2>/dev/null; then
		git -C "$repo" fetch --quiet --no-tags origin "$rev"
	fi
done

args=(review --repo "$repo" --base "$base" --head "$head" --plans "${OLMOPS_PLANS:-changed}")
IFS=', ' read -r -a clusters <<<"${OLMOPS_CLUSTERS:-}"
for c in ${clusters[@]+"${clusters[@]}"}; do
	if [[ -n "$c" ]]; then
		args+=(--cluster "$c")
	fi
done
if [[ "${OLMOPS_FAIL_ON_WARNINGS:-false}" == "true" ]]; then
	args+=(--fail-on-warnings)
fi
if [[ "${OLMOPS_POST_STATUS:-false}" == "true" ]]; then
	# Only the review sees the token, not the build.
	GITHUB_TOKEN="${OLMOPS_TOKEN:-}" exec "$bin_dir/olmops" "${args[@]}" -o markdown --post-status >>"${GITHUB_STEP_SUMMARY:-/dev/stdout}"
fi
exec "$bin_dir/olmops" "${args[@]}" -o github
