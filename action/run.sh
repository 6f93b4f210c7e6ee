#!/usr/bin/env bash
# The GitHub Action's one step (action.yml): install guard, put it on PATH for later
# steps, then run the CI gate in the current directory.
#
# guard comes from the release: the archive for the runner's OS and architecture
# (goreleaser's guard_VERSION_OS_ARCH.tar.gz, .zip on Windows), checked against the
# release's checksums.txt (SHA-256) before anything of it runs. With from-source it
# is built from the action's own checkout instead (needs Go: action.yml sets it up).
#
# Inputs come as GUARD_INPUT_* variables; GUARD_ACTION_PATH is the action's checkout,
# GUARD_ACTION_REF the ref it was pinned at (github.action_ref).
# The exit status is guard ci's: 0 allowed, 1 refused, 2 error (the job fails on both);
# an install that fails, or a download that fails its checksum, is 2.
set -euo pipefail

src=${GUARD_ACTION_PATH:?GUARD_ACTION_PATH is not set (run by action.yml)}
bin_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/guard-action-bin
mkdir -p "$bin_dir"
exe=guard
case "${RUNNER_OS:-}" in Windows) exe=guard.exe ;; esac

fail() {
  echo "::error title=guard action::$1"
  echo "guard action: $1" >&2
  exit 2
}

build_from_source() {
  echo "::group::build guard from $src"
  commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo none)
  # Plain go build flags, so that the runner's (or a test's) build cache serves it.
  (cd "$src" && go build \
    -ldflags "-X main.version=action -X main.commit=$commit -X main.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -o "$bin_dir/$exe" ./cmd/guard)
  echo "::endgroup::"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1 # macOS
  fi
}

download_release() {
  local base=${GUARD_INPUT_RELEASE_URL:-https://github.com/guardlocks/guard/releases}
  base=${base%/}
  local os arch ext=tar.gz
  case "${RUNNER_OS:-}" in
    Linux) os=linux ;;
    macOS) os=darwin ;;
    Windows) os=windows ext=zip ;;
    *) fail "guard ships no release binary for the runner OS '${RUNNER_OS:-}' (Linux, macOS and Windows only): set from-source: true to build it" ;;
  esac
  case "${RUNNER_ARCH:-}" in
    X64) arch=amd64 ;;
    ARM64) arch=arm64 ;;
    *) fail "guard ships no release binary for the runner architecture '${RUNNER_ARCH:-}' (X64 and ARM64 only): set from-source: true to build it" ;;
  esac

  # The version: the input; else the ref the action is pinned at when it names a
  # release (uses: guardlocks/guard@v1.2.3); else the latest release, which
  # $base/latest redirects to (…/tag/vX.Y.Z).
  local tag=${GUARD_INPUT_VERSION:-}
  if [ -z "$tag" ] && [[ "${GUARD_ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
    tag=$GUARD_ACTION_REF
  fi
  if [ -z "$tag" ] || [ "$tag" = latest ]; then
    local url
    url=$(curl -fsSL --retry 3 -o /dev/null -w '%{url_effective}' "$base/latest") ||
      fail "could not find the latest release at $base/latest: set the version input (e.g. v1.2.3), or from-source: true"
    tag=${url##*/}
    [[ "$tag" =~ ^v[0-9] ]] || fail "$base/latest led to $url, which names no release tag: set the version input (e.g. v1.2.3)"
  fi
  case "$tag" in v*) ;; *) tag=v$tag ;; esac
  local archive="guard_${tag#v}_${os}_${arch}.${ext}"

  echo "::group::install guard $tag ($archive) from $base"
  local dl
  dl=$(mktemp -d)
  curl -fsSL --retry 3 -o "$dl/$archive" "$base/download/$tag/$archive" ||
    fail "could not download $base/download/$tag/$archive (is $tag a release of guard?)"
  curl -fsSL --retry 3 -o "$dl/checksums.txt" "$base/download/$tag/checksums.txt" ||
    fail "could not download $base/download/$tag/checksums.txt: refusing to run an unverified download"
  local want got
  want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dl/checksums.txt")
  [ -n "$want" ] || fail "checksums.txt of $tag lists no $archive: refusing to run an unverified download"
  got=$(sha256 "$dl/$archive")
  if [ "$got" != "$want" ]; then
    fail "refusing $archive: its SHA-256 is $got, but checksums.txt of $tag says $want. The download is corrupt or was tampered with, and nothing of it was installed. Re-run the job; if it happens again, report it, and meanwhile set from-source: true"
  fi
  echo "$archive: SHA-256 $got matches checksums.txt"
  case "$ext" in
    zip)
      if command -v unzip >/dev/null 2>&1; then
        unzip -q -o "$dl/$archive" "$exe" -d "$bin_dir"
      else
        tar -xf "$dl/$archive" -C "$bin_dir" "$exe" # Windows' bsdtar reads zip
      fi
      ;;
    *) tar -xzf "$dl/$archive" -C "$bin_dir" "$exe" ;;
  esac
  rm -rf "$dl"
  echo "::endgroup::"
}

case "${GUARD_INPUT_FROM_SOURCE:-false}" in
  true) build_from_source ;;
  false | "") download_release ;;
  *) fail "from-source must be true or false, not '${GUARD_INPUT_FROM_SOURCE}'" ;;
esac
"$bin_dir/$exe" version

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
