//go:build linux

package lockcore

import (
	"io/fs"
	"sync"
	"syscall"
	"unsafe"
)

// direntBufs are getdents buffers shared by the walker's workers.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// forEachEntry calls fn with the name and type of every entry of dir (not "." and
// ".."). On Linux it reads the directory with getdents64 directly: the scanner reads
// hundreds of thousands of directories, and this avoids the poller registration and
// the per-entry allocations of os.ReadDir; a name is only turned into a string of its
// own when the caller keeps it. opened reports whether dir could be opened; err is
// the first failure.
func forEachEntry(dir string, fn func(name string, typ fs.FileMode)) (opened bool, err error) {
	fd, err := openDir(dir)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := readDirent(fd, buf)
		if err != nil {
			return true, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return true, nil
		}
		for off := 0; off+19 <= n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			ino := *(*uint64)(unsafe.Pointer(&buf[off]))
			typ := buf[off+18]
			nameBytes := buf[off+19 : off+reclen]
			for i, c := range nameBytes {
				if c == 0 {
					nameBytes = nameBytes[:i]
					break
				}
			}
			off += reclen
			if ino == 0 || len(nameBytes) == 0 {
				continue
			}
			name := unsafe.String(&nameBytes[0], len(nameBytes))
			if name == "." || name == ".." {
				continue
			}
			fn(name, direntMode(typ))
		}
	}
}

func openDir(dir string) (int, error) {
	for {
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func readDirent(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

func direntMode(t uint8) fs.FileMode {
	switch t {
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_REG:
		return 0
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return modeUnknown
}
