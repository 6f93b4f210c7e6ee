package lockcore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCloudAttributesDecide(t *testing.T) {
	cases := []struct {
		name    string
		attrs   uint32
		reparse bool
		cloud   bool
		what    string
	}{
		{"a plain file is not a cloud file", 0x20, true, false, ""},
		{"read-only, hidden and system say nothing about sync", 0x1 | 0x2 | 0x4, true, false, ""},
		{"a placeholder whose data is elsewhere is", attrRecallOnDataAccess | 0x20, false, true, "FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS"},
		{"a folder recalled when opened is", attrRecallOnOpen | 0x10, false, true, "FILE_ATTRIBUTE_RECALL_ON_OPEN"},
		{"an offline file is", attrOffline, false, true, "FILE_ATTRIBUTE_OFFLINE"},
		{"a file kept on this device (pinned) is", attrPinned, false, true, "FILE_ATTRIBUTE_PINNED"},
		{"a file the provider may free up (unpinned) is", attrUnpinned, false, true, "FILE_ATTRIBUTE_UNPINNED"},
		{"the strongest sign is named first", attrUnpinned | attrRecallOnDataAccess | attrReparsePoint, true, true, "FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS"},
		{"a reparse point on the file or its folder is (placeholders are reparse points)", attrReparsePoint, true, true, "FILE_ATTRIBUTE_REPARSE_POINT"},
		{"a reparse point higher up is a link, not a sign of sync", attrReparsePoint | 0x10, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cloud, what := CloudAttributes(tc.attrs, tc.reparse)
			assert.Equal(t, tc.cloud, cloud)
			assert.Equal(t, tc.what, what)
		})
	}
}

func TestCloudPressureProbesThePathAndTheFoldersAbove(t *testing.T) {
	p := func(s string) string { return filepath.FromSlash(s) }
	lockFile := p("/data/sync/proj/LOCK.txt")
	cases := []struct {
		name  string
		path  string
		attrs map[string]uint32
		cloud bool
		how   string
	}{
		{"no attributes and no cloud name: not cloud", lockFile, nil, false, ""},
		{"the lock file a placeholder", lockFile, map[string]uint32{lockFile: attrRecallOnDataAccess}, true, "FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS on " + lockFile},
		{"a pinned folder two levels up", lockFile, map[string]uint32{p("/data/sync"): attrPinned | 0x10}, true, "FILE_ATTRIBUTE_PINNED on " + p("/data/sync")},
		{"the lock's folder a reparse point (a cloud placeholder folder)", lockFile, map[string]uint32{p("/data/sync/proj"): attrReparsePoint | 0x10}, true, "FILE_ATTRIBUTE_REPARSE_POINT on " + p("/data/sync/proj")},
		{"a junction higher up is not cloud", lockFile, map[string]uint32{p("/data/sync"): attrReparsePoint | 0x10}, false, ""},
		{"without attributes the folder name decides", p("/home/a/OneDrive/proj/LOCK.txt"), nil, true, "a cloud folder's name in the path"},
		{"plain attributes and a plain name: not cloud", lockFile, map[string]uint32{lockFile: 0x20, p("/data/sync/proj"): 0x10}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			probe := func(path string) (uint32, bool) {
				a, ok := tc.attrs[path]
				return a, ok
			}
			cloud, how := cloudPressure(tc.path, probe)
			assert.Equal(t, tc.cloud, cloud)
			assert.Equal(t, tc.how, how)
		})
	}
}
