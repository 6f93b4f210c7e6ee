package lockcore

import "golang.org/x/sys/windows"

// fileAttributes reads path's attributes with GetFileAttributes, which does not follow
// a final reparse point (a placeholder's own attributes are what it reports), and
// does not hydrate a placeholder.
func fileAttributes(path string) (uint32, bool) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, false
	}
	a, err := windows.GetFileAttributes(p)
	if err != nil || a == windows.INVALID_FILE_ATTRIBUTES {
		return 0, false
	}
	return a, true
}
