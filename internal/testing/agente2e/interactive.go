package agente2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Session is an agent's interactive interface running in a pseudo-terminal.
type Session struct {
	t       testing.TB
	control *os.File
	cmd     *exec.Cmd
	cancel  context.CancelFunc

	mu     sync.Mutex
	screen bytes.Buffer
	done   chan struct{}
}

// ansi matches the terminal control sequences an interface draws with.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>78]`)

// Output is everything the interface printed so far, control sequences removed.
func (s *Session) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.ReplaceAllString(s.screen.String(), "")
}

// WaitFor waits until the output holds text, false after timeout.
func (s *Session) WaitFor(text string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(s.Output(), text) {
			return true
		}
		select {
		case <-s.done:
			return strings.Contains(s.Output(), text)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}

// Type sends keys to the interface as a person would type them.
func (s *Session) Type(keys string) {
	if _, err := s.control.Write([]byte(keys)); err != nil {
		s.t.Logf("typing %q: %v", keys, err)
	}
}

// Stop ends the session (the process and everything it started).
func (s *Session) Stop() {
	s.cancel()
	<-s.done
	s.control.Close()
}

// StartGeminiInteractive starts `gemini -i PROMPT` (its interactive interface, with
// the prompt sent at once) against the fake model s in a terminal, with the same
// settings and environment as RunGemini.
func StartGeminiInteractive(t testing.TB, s *Server, r Run) *Session {
	t.Helper()
	bin := CLI(t, Gemini)
	settings := filepath.Join(r.Home, ".gemini", "settings.json")
	if _, err := os.Stat(settings); err != nil {
		WriteFile(t, settings, GeminiUserSettings)
	}
	control, term, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "-i", prompt(r), "--approval-mode", "yolo", "-m", "gemini-2.5-pro")
	cmd.Dir = r.Dir
	env := baseEnv(r)
	for i, kv := range env {
		if strings.HasPrefix(kv, "TERM=") {
			env[i] = "TERM=xterm-256color" // an interface needs a real terminal type
		}
		if strings.HasPrefix(kv, "CI=") {
			env[i] = "CI=" // Ink draws nothing interactive under CI
		}
	}
	cmd.Env = append(append(env,
		"GOOGLE_GEMINI_BASE_URL="+s.URL,
		"GEMINI_API_KEY=guard-test-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
	), r.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	cmd.SysProcAttr = ttyAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		control.Close()
		term.Close()
		t.Fatalf("starting gemini: %v", err)
	}
	term.Close()
	sess := &Session{t: t, control: control, cmd: cmd, cancel: cancel, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := control.Read(buf)
			if n > 0 {
				sess.mu.Lock()
				sess.screen.Write(buf[:n])
				sess.mu.Unlock()
			}
			if err != nil {
				break
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(sess.done)
	}()
	t.Cleanup(func() {
		select {
		case <-sess.done:
		default:
			sess.Stop()
		}
	})
	return sess
}
