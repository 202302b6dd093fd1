#!/usr/bin/env bash
# The step of the olmops review GitHub Action (action.yml), kept in a file
# so that the end-to-end test runs it exactly as a runner does. action.yml
# maps its inputs and the pull request's commits onto OLMOPS_* variables.
#
# At a release tag (uses: olmops/olmops@vX.Y.Z) it downloads that
# release's binary and verifies it against the release's checksums.txt.
# Otherwise (or with build-from-source) it builds olmops with the runner's
# Go toolchain: from the action's own checkout when the action is local
# (uses: ./, where github.action_ref is empty), else with go install at the
# action's ref.
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

build_from_source() {
	if [[ -z "${OLMOPS_ACTION_REF:-}" ]]; then
		(cd "$GITHUB_ACTION_PATH" && go build -trimpath -tags kustomize_disable_go_plugin_support -ldflags "-s -w -X main.version=local" -o "$bin_dir/olmops" ./cmd/olmops)
	else
		GOBIN="$bin_dir" go install -trimpath -tags kustomize_disable_go_plugin_support -ldflags "-s -w -X main.version=$OLMOPS_ACTION_REF" \
			"github.com/olmops/olmops/cmd/olmops@$OLMOPS_ACTION_REF"
	fi
}

# A release's binary, checked against the release's checksums.txt: a
# mismatch stops the step, since running an unverified binary with the
# repository's token is what this check is for. No binary for this
# platform (or no release at that ref) falls back to building.
download_release() {
	local os arch file url want got
	os=$(uname -s | tr '[:upper:]' '[:lower:]')
	arch=$(uname -m)
	case "$arch" in
	x86_64) arch=amd64 ;;
	aarch64) arch=arm64 ;;
	esac
	file="olmops_${os}_${arch}"
	url="${OLMOPS_RELEASE_URL:-https://github.com/olmops/olmops/releases/download}/$OLMOPS_ACTION_REF"
	if ! curl -fsSL --retry 3 -o "$bin_dir/checksums.txt" "$url/checksums.txt" ||
		! curl -fsSL --retry 3 -o "$bin_dir/$file" "$url/$file"; then
		echo "::warning title=olmops review::no release binary $file at $url: building olmops from source" >&2
		return 1
	fi
	want=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$bin_dir/checksums.txt")
	got=$(sha256sum "$bin_dir/$file" | cut -d' ' -f1)
	if [[ -z "$want" || "$want" != "$got" ]]; then
		echo "::error title=olmops review::$file of $OLMOPS_ACTION_REF does not match its checksums.txt (want ${want:-no entry}, got $got): not running it" >&2
		exit 2
	fi
	mv "$bin_dir/$file" "$bin_dir/olmops"
	chmod +x "$bin_dir/olmops"
}

if [[ "${OLMOPS_ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ && "${OLMOPS_BUILD_FROM_SOURCE:-false}" != "true" ]]; then
	download_release || build_from_source
else
	build_from_source
fi

# actions/checkout fetches a single commit unless told otherwise: bring the
# base and head when they are missing.
for rev in "$base" "$head"; do
	if ! git -C "$repo" cat-file -e "$rev^{commit}" 2>/dev/null; then
		git -C "$repo" fetch --quiet --no-tags origin "$rev"
	fi
done

args=(review --repo "$repo" --base "$base" --head "$head" --plans "${OLMOPS_PLANS:-changed}" --report "$bin_dir/report.json")
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
