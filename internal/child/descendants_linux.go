package child

import (
	"bytes"
	"os"
	"strconv"
)

// descendants lists the live processes below pid (zombies, which only wait to be
// reaped, are not counted). It reads every /proc/<pid>/stat rather than
// /proc/<pid>/task/<tid>/children, which not every kernel has: a process that forks
// meanwhile may be missed, and the caller looks again until none is left.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, zombie, ok := procStat(p)
		if ok && !zombie {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// procStat reads a process's parent and whether it is a zombie from
// /proc/<pid>/stat ("pid (comm) state ppid ...", comm may hold spaces and
// parentheses, so the fields start after the last ')').
func procStat(pid int) (ppid int, zombie, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 2 {
		return 0, false, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return ppid, string(f[0]) == "Z" || string(f[0]) == "X", err == nil
}
