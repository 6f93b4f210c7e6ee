package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/execpath"
	"github.com/guardlocks/guard/internal/filelock"
)

// LockName is the file in guard's state directory that one guard serve holds (an OS
// file lock, so two starts at once cannot both win) and that names its address.
const LockName = "serve.lock"

// ServeOptions configure guard serve.
type ServeOptions struct {
	Options
	// Addr is host:port; the host must be loopback.
	Addr string
	// Open starts the system's browser on the URL.
	Open bool
	// Watch runs the watcher until ctx ends, handing each event to emit and the result
	// of each full scan to scanned; it also runs whatever else feeds the event stream
	// (the history's follower).
	Watch func(ctx context.Context, emit func(guard.Event), scanned func(guard.WatchScan)) error
	// Ready, when set, receives the URL once the server listens (tests).
	Ready func(url string)
}

// Serve runs guard serve until ctx ends. Exit 2 for a non-loopback address, 1 when
// another guard serve holds the state directory.
func Serve(ctx context.Context, o ServeOptions) error {
	env := o.Env
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return guard.Fail(guard.BadInput, "serve: --addr %q: %w (give host:port, e.g. 127.0.0.1:8095)", o.Addr, err)
	}
	if !LoopbackHost(host) {
		return guard.Fail(guard.BadInput, "serve: --addr %q is not a loopback address: guard serve listens on 127.0.0.1, ::1 or localhost only (its token would cross the network)", o.Addr)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	state, err := guard.StateDir(env)
	if err != nil {
		return guard.Fail(guard.BadInput, "serve: %w", err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return guard.Fail(guard.BadInput, "serve: %w", err)
	}
	lockPath := filepath.Join(state, LockName)
	lf, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return guard.Fail(guard.BadInput, "serve: %w", err)
	}
	defer lf.Close()
	if err := filelock.TryLock(lf); err != nil {
		where, _ := os.ReadFile(lockPath)
		w := strings.TrimSpace(string(where))
		if w == "" {
			w = "an address it has not written yet"
		}
		return guard.Fail(guard.Refused, "serve: another guard serve already runs for %s, at %s (%s holds it); use that one, or stop it first", state, w, lockPath)
	}
	defer func() { _ = filelock.Unlock(lf) }()

	if o.Token == "" {
		if o.Token, err = NewToken(); err != nil {
			return guard.Fail(guard.BadInput, "serve: no random token: %w", err)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return guard.Fail(guard.BadInput, "serve: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	base := "http://" + ln.Addr().String()
	// The lock file names the address only, never the token.
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(fmt.Sprintf("%s pid %d\n", base, os.Getpid())), 0)

	s := New(o.Options)
	s.SetPort(fmt.Sprint(addr.Port))
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if o.Watch != nil {
		go func() {
			if err := o.Watch(ctx, s.Publish, s.Scanned); err != nil {
				fmt.Fprintf(env.Stderr, "guard serve: warning: the watcher stopped: %v (the page no longer updates by itself)\n", err)
			}
		}()
	}
	// The token travels in the fragment, which the browser keeps to itself: never in
	// a request, a cookie, a log line or a Referer.
	url := base + "/#token=" + o.Token
	fmt.Fprintf(env.Stderr, "guard serve: %s\n(the token is for you only: do not paste it where an agent can read it; Ctrl-C ends)\n", url)
	if o.Ready != nil {
		o.Ready(url)
	}
	if o.Open {
		// The browser's command line is visible to every process: it gets the path of
		// a page only this user can read, which holds a one-time code.
		page, err := s.OpenPage(state, base)
		if err == nil {
			err = openBrowser(env, FileURL(page))
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "guard serve: warning: could not open a browser: %v\n", err)
		}
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return guard.Fail(guard.BadInput, "serve: %w", err)
		}
	}
	shut, stop := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer stop()
	_ = srv.Shutdown(shut)
	_ = lf.Truncate(0)
	return nil
}

// openBrowser starts the system's browser on url: xdg-open (found in env's PATH),
// open on macOS, the URL handler on Windows.
func openBrowser(env *guard.Env, url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		p, err := execpath.Look("xdg-open", env.Dir, env.Env("PATH"))
		if err != nil {
			return err
		}
		cmd = exec.Command(p, url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it
	return nil
}
