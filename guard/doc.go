// Package guard is guard's policy: which locks and publication markers apply to which
// paths and operations, for whom, and why. Hooks, publish, ci, the agent hook and the
// lock-library commands gather their inputs and ask it; none of them decides alone.
//
// What it guarantees:
//
//   - Fail closed: a directory, lock file, team lock or configuration that cannot be
//     read refuses (a Block, an unreadable PRIVATE.txt, a scope that falls back to its
//     whole directory); only a request it cannot judge at all is an error.
//   - One moment, one reading: a Policy pins the time it was made and reads each
//     directory, .guard.toml, scope folder and team lock at most once, so checking the
//     thousands of paths of one commit costs one read per distinct thing. Make a new
//     Policy for each decision.
//   - The rules are CONTRACT.md section 2 (what a lock covers and whom it stops) and
//     section 5 (PRIVATE.txt and PUBLIC.txt), and every refusal says which file, whose
//     lock, why, and what to do now (Decision.Explain, WayOut).
//   - The world comes from Env (streams, clock, user, host, working directory,
//     environment): the package never reads the process's clock, environment or
//     working directory itself, so tests pin all of them.
package guard
