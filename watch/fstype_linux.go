package watch

import "syscall"

// Local Linux file systems whose folders inotify reports completely and whose times
// have nanosecond resolution (statfs f_type, from linux/magic.h).
var reliable = map[int64]bool{
	0xEF53:     true, // ext2/3/4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x794c7630: true, // overlayfs
	0x2fc12fc1: true, // zfs
	0xF2F52010: true, // f2fs
}

// notifyReliable reports whether path lies on such a file system (not NFS, SMB, FUSE
// or another network or user-space file system, where changes made elsewhere send
// no notification).
func notifyReliable(path string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return false
	}
	return reliable[int64(st.Type)]
}

// sigOf is the dirSig of the folder at path (false when it is gone or not a folder).
// It allocates nothing: verifyScan calls it once per folder, and on a 200,000-folder
// tree the garbage of os.Lstat would cost more than the system calls.
func sigOf(path string) (dirSig, bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return dirSig{}, false
		}
		return dirSig{mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec, ino: st.Ino}, true
	}
}
