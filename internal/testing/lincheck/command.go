//go:build linux

package lincheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// serve answers COMMAND's words (one JSON object a line).
func (h *Harness) serve() {
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			return
		}
		go h.talk(conn)
	}
}

type childMsg struct {
	Op    string `json:"op"` // hello, write, bye
	Nonce string `json:"nonce"`
	Pid   int    `json:"pid"`
	Fence string `json:"fence"`
}

func (h *Harness) talk(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	var rs *runState
	for sc.Scan() {
		var m childMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			h.T.Errorf("COMMAND sent %q: %v", sc.Text(), err)
			return
		}
		reply := "ok"
		switch m.Op {
		case "hello":
			h.mu.Lock()
			rs = h.runs[m.Nonce]
			h.mu.Unlock()
			if rs == nil {
				h.T.Errorf("COMMAND of an unknown run %q", m.Nonce)
				return
			}
			fence, err := strconv.ParseInt(m.Fence, 10, 64)
			if err != nil {
				h.T.Errorf("guard run gave COMMAND LOCK_FENCE=%q", m.Fence)
			}
			rs.mu.Lock()
			rs.fence = fence
			if rs.acquire != nil {
				rs.acquire.End(Output{OK: true, Fence: fence, Code: -1, Detail: "COMMAND started"})
				rs.acquire = nil
			}
			rs.mu.Unlock()
			h.mu.Lock()
			if p := h.procs[rs.client]; p != nil {
				p.Command, p.Fence = m.Pid, fence
				if rs.started != nil {
					rs.started <- *p
				}
			}
			h.mu.Unlock()
		case "write":
			p := h.Hist.Begin(rs.client, Write, "write (COMMAND)", rs.fence)
			ok, detail := h.Store.Write(rs.client, rs.fence)
			p.End(Output{OK: ok, Code: -1, Detail: detail})
			if !ok {
				reply = "rejected"
			}
		case "bye":
			rs.mu.Lock()
			rs.end = h.Hist.Begin(rs.client, RunEnd, "guard run exit", rs.fence)
			rs.mu.Unlock()
		}
		if _, err := fmt.Fprintln(conn, reply); err != nil {
			return
		}
	}
}

// Child is COMMAND of a guard run (the test binary with LINCHECK_CHILD set): hello
// with its fence, LINCHECK_WRITES writes LINCHECK_GAP apart, bye, exit 0. TestMain
// calls it.
func Child() {
	conn, err := net.Dial("unix", os.Getenv("LINCHECK_SOCK"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "lincheck child:", err)
		os.Exit(70)
	}
	rd := bufio.NewScanner(conn)
	say := func(op string) string {
		m := childMsg{Op: op, Nonce: os.Getenv("LINCHECK_NONCE"), Pid: os.Getpid(), Fence: os.Getenv("LOCK_FENCE")}
		data, _ := json.Marshal(m)
		if _, err := conn.Write(append(data, '\n')); err != nil {
			os.Exit(71)
		}
		if !rd.Scan() {
			os.Exit(72)
		}
		return rd.Text()
	}
	say("hello")
	n, _ := strconv.Atoi(os.Getenv("LINCHECK_WRITES"))
	gap, _ := time.ParseDuration(os.Getenv("LINCHECK_GAP"))
	for range n {
		time.Sleep(gap)
		say("write")
	}
	say("bye")
	os.Exit(0)
}
