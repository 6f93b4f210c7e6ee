package install

import (
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
)

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// lookPath searches the PATH of env (not the process's) for name.
func lookPath(env *guard.Env, name string) string {
	for _, d := range filepath.SplitList(env.Env("PATH")) {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, name); executable(p) {
			return p
		}
	}
	return ""
}
