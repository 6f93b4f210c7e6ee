#!/usr/bin/env bash
# The GitHub Action's one step (action.yml): build guard from the action's source,
# put it on PATH for later steps, then run the CI gate in the current directory.
#
# Inputs come as GUARD_INPUT_* variables; GUARD_ACTION_PATH is the action's checkout.
# The exit status is guard ci's: 0 allowed, 1 refused, 2 error (the job fails on both).
set -euo pipefail

src=${GUARD_ACTION_PATH:?GUARD_ACTION_PATH is not set (run by action.yml)}
bin_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/guard-action-bin
mkdir -p "$bin_dir"
exe=guard
case "${RUNNER_OS:-}" in Windows) exe=guard.exe ;; esac

echo "::group::build guard from $src"
commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo none)
# Plain go build flags, so that the runner's (or a test's) build cache serves it.
(cd "$src" && go build \
  -ldflags "-X main.version=action -X main.commit=$commit -X main.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  -o "$bin_dir/$exe" ./cmd/guard)
"$bin_dir/$exe" version
echo "::endgroup::"

[ -n "${GITHUB_PATH:-}" ] && echo "$bin_dir" >> "$GITHUB_PATH"
[ -n "${GITHUB_OUTPUT:-}" ] && echo "guard=$bin_dir/$exe" >> "$GITHUB_OUTPUT"

args=(ci --format "${GUARD_INPUT_FORMAT:-github}")
[ -n "${GUARD_INPUT_BASE:-}" ] && args+=(--base "$GUARD_INPUT_BASE")
[ -n "${GUARD_INPUT_HEAD:-}" ] && args+=(--head "$GUARD_INPUT_HEAD")
if [ -n "${GUARD_INPUT_OPS:-}" ]; then
  IFS=', ' read -r -a ops <<< "$GUARD_INPUT_OPS"
  for op in "${ops[@]}"; do
    [ -n "$op" ] && args+=(--op "$op")
  done
fi
exec "$bin_dir/$exe" "${args[@]}"
