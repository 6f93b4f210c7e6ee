package atomicfile

import "strings"

// IsTempName reports whether name is one of Write's temporary files:
// "." + target + "." + decimal digits (os.CreateTemp's random part) + TempSuffix. It
// returns the target's name.
func IsTempName(name string) (target string, ok bool) {
	rest, ok := strings.CutSuffix(name, TempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 1 || i == len(rest)-1 {
		return "", false
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return rest[1:i], true
}
