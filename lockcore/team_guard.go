package lockcore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/guardlocks/guard/internal/filelock"
)

// acquireTeamGuard takes the exclusive OS lock of the team lock's sibling guard file
// `<path>.guard` (flock, or LockFileEx on the first byte as the reference's
// msvcrt.locking does), creating it when missing, and returns the function that
// releases it. The guard is opened without following symbolic links, holds no state
// and is never deleted: waiters must all lock the same file, and the OS drops the
// lock when its holder dies. A busy guard is waited for until timeout (default 5 s),
// then ErrTeamGuardTimeout.
func acquireTeamGuard(path string, timeout time.Duration) (func(), error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	gp := path + ".guard"
	f, err := openGuard(gp)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("not a regular file")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := filelock.Lock(ctx, f); err != nil {
		f.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w after %s", gp, ErrTeamGuardTimeout, timeout)
		}
		return nil, &fs.PathError{Op: "flock", Path: gp, Err: err}
	}
	// An empty guard gets one byte, as the reference does, so that byte-range locks
	// (its Windows path) have something to lock.
	if st.Size() == 0 {
		if _, err := f.Write([]byte{0}); err == nil {
			_ = f.Sync()
		}
	}
	return func() {
		_ = filelock.Unlock(f)
		f.Close()
	}, nil
}
