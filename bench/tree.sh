# bench/tree.sh, sourced by scan.sh and watch.sh with ROOT set: builds, once, the
# synthetic tree of 208,421 directories (20 x 20 x 20 x 25 = 200,000 leaves at depth 4,
# the default max depth, plus their 8,420 parents) holding 300 lock files.
if [ ! -f "$ROOT/.complete" ]; then
	echo "building tree in $ROOT ..." >&2
	rm -rf "$ROOT"
	mkdir -p "$ROOT"
	for a in $(seq -w 0 19); do
		mkdir -p "$ROOT"/a$a/b{00..19}/c{00..19}/d{00..24}
	done
	# 300 locks spread over every depth: 100 at depth 4, 100 at depth 3, 80 at
	# depth 2, 20 at depth 1; a few hundred ordinary files beside them.
	i=0
	for a in $(seq -w 0 19); do
		printf 'owner: bench\ncreated: 2099-01-01T00:00\n' >"$ROOT/a$a/LOCK.txt"
		for b in 00 05 10 15; do
			printf 'owner: bench\n' >"$ROOT/a$a/b$b/LOCK.team.h$i.txt"
			printf 'owner: bench\n' >"$ROOT/a$a/b$b/c07/LOCK.user.txt"
			i=$((i + 1))
		done
		for c in 01 09 13 17 19; do
			printf 'owner: bench\n' >"$ROOT/a$a/b03/c$c/d11/LOCK.api.txt"
			printf 'notes\n' >"$ROOT/a$a/b03/c$c/d11/README.txt"
		done
		printf 'owner: bench\n' >"$ROOT/a$a/b04/c05/LOCK.txt"
	done
	touch "$ROOT/.complete"
fi
