package lockcore

import "strings"

// ScratchKind says what a scratch file of lockcore's is: "temp" (a lock body being
// written, .<lockname>.<random>.tmp) or "mutex" (.<lockname>.mutex,
// .guard-lockdir.mutex); "" when name is not one of lockcore's scratch names. Both
// kinds are held under an OS file lock by the process using them, and a holder removes
// its own on the way out: one that nobody holds was left by a killed process.
func ScratchKind(name string) string {
	if !isScratch(name) {
		return ""
	}
	if strings.HasSuffix(name, mutexSuffix) {
		return "mutex"
	}
	return "temp"
}
