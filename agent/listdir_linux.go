package agent

import (
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listDir calls fn for each entry of dir (not . and ..) with whether it is a folder
// (not following links). It reads the entries with getdents64 into one reused buffer
// and allocates only the names fn keeps: the near-lock search lists every folder of a
// project, and os.ReadDir's per-entry allocations were most of its cost.
func listDir(dir string, buf []byte, fn func(name string, isDir bool)) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "getdents", Path: dir, Err: err}
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off < n; {
			d := (*unix.Dirent)(unsafe.Pointer(&buf[off]))
			reclen := int(d.Reclen)
			if reclen == 0 || off+reclen > n {
				return nil
			}
			nameBytes := buf[off+int(unsafe.Offsetof(d.Name)) : off+reclen]
			l := 0
			for l < len(nameBytes) && nameBytes[l] != 0 {
				l++
			}
			off += reclen
			name := unsafe.String(&nameBytes[0], l)
			if name == "." || name == ".." || l == 0 {
				continue
			}
			isDir := d.Type == unix.DT_DIR
			if d.Type == unix.DT_UNKNOWN {
				// Some file systems do not tell the type here.
				if st, err := os.Lstat(filepath.Join(dir, name)); err == nil {
					isDir = st.IsDir()
				}
			}
			fn(name, isDir)
		}
	}
}
