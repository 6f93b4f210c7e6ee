#!/usr/bin/env bash
# bench/shell.sh: how long the agent hook takes to read a 1 MiB Bash command (a
# here-document writing a big file, one long quoted argument, a dense script), against
# reading the same bytes from memory into the parser's input (`go test -bench`).
# Issue 11: under 100 ms; a command that would take longer is cut off after 80 ms of
# parsing and treated as unreadable (asked about near a lock). Figures are in
# bench/README.md, "## agent-hook: reading a 1 MiB command".
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./agent -run '^$' -bench 'AnalyzeBash1MiB' -benchtime "${COUNT:-20}x" -count 1 | grep '^Benchmark'
