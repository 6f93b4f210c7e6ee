package agente2e

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the side the test reads and writes, and the
// terminal the agent's interactive interface runs in.
func openPTY() (control, term *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	control = os.NewFile(uintptr(fd), "/dev/ptmx")
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		control.Close()
		return nil, nil, fmt.Errorf("unlocking the terminal: %w", e)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		control.Close()
		return nil, nil, err
	}
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		control.Close()
		return nil, nil, err
	}
	// A terminal of a usual size: the interface lays itself out by it.
	_ = unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 160})
	return control, term, nil
}

// ttyAttr makes the child the leader of a new session whose controlling terminal is
// its standard input.
func ttyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}
