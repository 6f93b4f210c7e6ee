package execpath

import (
	"errors"
	"io/fs"
	"os/exec"
	"runtime"
	"testing"
)

// Status reads a real command's end as a shell would: its code, 128+N for signal N,
// and an error (not a code) for a command that never ran.
func TestStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh and POSIX signals")
	}
	for _, tc := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -KILL $$", 128 + 9},
	} {
		cmd := exec.Command("sh", "-c", tc.script)
		got, err := Status(cmd, cmd.Run())
		if err != nil || got != tc.want {
			t.Errorf("%s: Status = %d, %v; want %d, nil", tc.script, got, err, tc.want)
		}
	}
	cmd := exec.Command(t.TempDir() + "/missing")
	got, err := Status(cmd, cmd.Run())
	if !errors.Is(err, fs.ErrNotExist) || got != 0 {
		t.Errorf("missing program: Status = %d, %v; want 0 and a not-exist error", got, err)
	}
}
