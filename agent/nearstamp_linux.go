package agent

import "golang.org/x/sys/unix"

const stampsSupported = true

// stamper takes folders' stamps relative to an open root, so that each lstat
// resolves one name rather than the whole path again.
type stamper struct{ fd int }

func newStamper(root string) *stamper {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &stamper{fd: -1}
	}
	return &stamper{fd: fd}
}

func (s *stamper) close() {
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
	}
}

// stamp returns the stamp of root/rel (not following a link), ok false when it is not
// a folder or cannot be read.
func (s *stamper) stamp(rel string) (dirStamp, bool) {
	if s.fd < 0 {
		return dirStamp{}, false
	}
	var st unix.Stat_t
	if err := unix.Fstatat(s.fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirStamp{}, false
	}
	return dirStamp{dev: uint64(st.Dev), ino: st.Ino, ctime: st.Ctim.Nano()}, true
}
