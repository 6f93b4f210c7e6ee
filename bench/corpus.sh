#!/usr/bin/env bash
# bench/corpus.sh: the rates at which the agent hook asks or denies the ordinary agent
# commands of testdata/agent-corpus.txt (builds, tests, git reads, interpreter
# one-liners, edits in free folders), read in a tree with one unrelated lock: under
# the default settings (must be 0; agent's TestOrdinaryCommandsAreNotAsked fails
# otherwise) and under [agent] strict = true. Figures are in bench/README.md,
# "## agent-hook: ordinary commands".
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./agent -run '^TestOrdinaryCommandsAreNotAsked$' -count=1 -v | grep -o 'corpus: .*'
