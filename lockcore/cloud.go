package lockcore

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The Windows file attributes that mark a file or folder as a cloud-sync provider's
// (OneDrive, and everything built on the Cloud Files API): a placeholder whose data
// is elsewhere, or a file the provider keeps (pinned) or may evict (unpinned).
// LOCK-SYSTEM.md "Contested Locks", detection stage 2.
const (
	attrReparsePoint       = 0x00000400 // FILE_ATTRIBUTE_REPARSE_POINT
	attrOffline            = 0x00001000 // FILE_ATTRIBUTE_OFFLINE
	attrRecallOnOpen       = 0x00040000 // FILE_ATTRIBUTE_RECALL_ON_OPEN
	attrPinned             = 0x00080000 // FILE_ATTRIBUTE_PINNED
	attrUnpinned           = 0x00100000 // FILE_ATTRIBUTE_UNPINNED
	attrRecallOnDataAccess = 0x00400000 // FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS
)

// placeholderAttrs are the attributes that only a sync provider sets, in the order
// they are named.
var placeholderAttrs = []struct {
	bit  uint32
	name string
}{
	{attrRecallOnDataAccess, "FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS"},
	{attrRecallOnOpen, "FILE_ATTRIBUTE_RECALL_ON_OPEN"},
	{attrOffline, "FILE_ATTRIBUTE_OFFLINE"},
	{attrPinned, "FILE_ATTRIBUTE_PINNED"},
	{attrUnpinned, "FILE_ATTRIBUTE_UNPINNED"},
}

// CloudAttributes reports whether a file's Windows attributes (GetFileAttributes) mark
// it as a cloud-sync provider's, and names the attribute. A reparse point counts only
// when reparse is true (the probed file and its folder): the reference counts it, as
// cloud placeholders are reparse points, but so are the symbolic links and junctions
// higher up a path, which say nothing about sync.
func CloudAttributes(attrs uint32, reparse bool) (bool, string) {
	for _, a := range placeholderAttrs {
		if attrs&a.bit != 0 {
			return true, a.name
		}
	}
	if reparse && attrs&attrReparsePoint != 0 {
		return true, "FILE_ATTRIBUTE_REPARSE_POINT"
	}
	return false, ""
}

// CloudPressure reports whether path (a lock file, or the folder a claim is for) is in
// a cloud-synced folder, and how that was seen, as the reference's cloud_pressure
// does after its optional prober: the placeholder attributes of path and of the
// folders above it (on Windows; elsewhere there are none), else a known cloud folder
// name in the path.
func CloudPressure(path string) (bool, string) {
	return cloudPressure(path, fileAttributes)
}

// cloudPressure is CloudPressure with the attribute probe given (it answers false
// where a path has no attributes to read).
func cloudPressure(path string, attrs func(string) (uint32, bool)) (bool, string) {
	p := filepath.Clean(path)
	for depth := 0; ; depth++ {
		if a, ok := attrs(p); ok {
			if cloud, name := CloudAttributes(a, depth < 2); cloud {
				return true, fmt.Sprintf("%s on %s", name, p)
			}
		}
		up := filepath.Dir(p)
		if up == p {
			break
		}
		p = up
	}
	if CloudPathHint(path) {
		return true, "a cloud folder's name in the path"
	}
	return false, ""
}

var cloudHints = []string{"onedrive", "dropbox", "google drive", "googledrive", "icloud", "nextcloud", "sharepoint"}

// CloudPathHint reports whether path looks like a cloud-synced folder by its name (the
// reference's third detection stage, for when the attributes say nothing: every
// system but Windows, and sync clients that set none).
func CloudPathHint(path string) bool {
	p := strings.ToLower(path)
	for _, h := range cloudHints {
		if strings.Contains(p, h) {
			return true
		}
	}
	return false
}
