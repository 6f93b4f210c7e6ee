#!/usr/bin/env bash
# The long run of the history checker (README, "Proved under faults"): every scenario
# of internal/testing/lincheck with 60-90 s of client load instead of 8-12 s, faults
# repeated throughout. Needs root for the mounts, loop devices and network namespaces
# (the scenarios that need it skip without), and Debian's etcd-server for etcd.
# It prints each scenario's operation and fault counts and its verdict:
#   bash bench/lincheck.sh               # all scenarios
#   bash bench/lincheck.sh TestEtcd      # a -run pattern
#   GUARD_LINCHECK_SEED=N bash bench/lincheck.sh TestFilesFullDisk   # repeat a run
# A history the checker rejects is printed whole, with the path of its visualisation.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern=${1:-.}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
GUARD_LINCHECK_LONG=1 go test -count=1 -timeout 60m -v -run "$pattern" ./internal/testing/lincheck/ >"$log" 2>&1 || status=$?
grep -E ': (history|faults): |^--- (PASS|FAIL|SKIP): Test(Files|Etcd|Checker|Run)|^(ok|FAIL)' "$log" | sed 's/^ *[a-z_]*\.go:[0-9]*: //'
if [ "$status" -ne 0 ]; then
	echo "== failed: the whole log"
	cat "$log"
fi
exit "$status"
