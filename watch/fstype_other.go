//go:build !linux

package watch

// notifyReliable: outside Linux the periodic rescan always reads every folder.
func notifyReliable(string) bool { return false }

// sigOf: unused where notifyReliable is false (no verifyScan).
func sigOf(string) (dirSig, bool) { return dirSig{}, true }
