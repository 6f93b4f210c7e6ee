// Package lockcore is the LOCK-SYSTEM lock library: it names, reads, classifies,
// expires, scans, creates, renews and releases the plain LOCK*.txt files that agents,
// automations and people use to say "this area is in use".
//
// It reads and writes the same files as the reference implementation (the Python
// project lock-master), with the deliberate differences listed in the project's
// CONTRACT.md section 7.
//
// What the words mean here:
//
//   - Expired: now is strictly after created + expires_after. Protected kinds (user,
//     condition, until, ambiguous names) and legacy locks never expire by time, except an
//     until lock after its not_before moment as LOCK-SYSTEM.md describes.
//   - Atomic: a lock file written by this package never exists half-written; it is
//     written to a temporary file in the same directory, synced, then linked or renamed
//     into place.
//   - Exclusive: of two creators racing for the same lock name, exactly one succeeds.
//   - Compare and swap: a takeover, renewal, release or prune replaces or removes a
//     lock only if the file is still the one it judged, under the lock name's mutex,
//     so a fresh lock that replaced it meanwhile is never lost.
//   - Fail closed: a lock file that cannot be read is still a lock (ReadErr set) and
//     never expires; names match case-insensitively (LOCK.txt names a lock.txt).
//
// The package never reads the wall clock or the host name itself: callers pass the
// current time (or a Clock), and the identity of the caller, so tests can pin them.
// It knows nothing of git, networks or command lines.
package lockcore
