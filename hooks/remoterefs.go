package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// What a push counts as already on the remote.
//
// A pre-push hook learns one thing from the remote itself: the old value of every ref
// the push updates (git reads them from the remote's advertisement and passes them on
// stdin). Everything else it could use, the remote-tracking refs, is a local file any
// command can write (`git update-ref refs/remotes/origin/x <commit>`), and counting a
// forged one as "the remote has it" would let a new branch publish commits into a
// locked area unchecked. So, for a new branch (or a remote commit unknown here), the
// commits the push publishes are the local tip's history minus
//
//   - the old remote values of this push's other refs that this repository has, and
//   - the remote-tracking refs of the pushed remote that git's transport wrote: refs
//     that only this remote's fetch refspecs map to (a ref another remote's refspec
//     also maps to, `refs/remotes/origin/mirror/*` of a remote named
//     `origin/mirror`, is not origin's), whose newest reflog entry set the ref's
//     present value and was written by `git fetch` or `git pull` from this remote,
//     `git clone`, or a push (`update by push`); or that have no reflog entry at all
//     and live only in packed-refs (git clone writes its tracking refs there without
//     a reflog; gc packs refs and empties reflogs older than 90 days).
//
// A ref written otherwise (update-ref, a fetch from another repository into it, a
// loose ref file with no reflog) is not counted: the commits behind it are
// checked as if the remote lacked them, and a refusal names the ref and how to make
// it count again (`git fetch REMOTE`). A reflog is a local file too, so someone set on
// forging one can; what this stops is the careless or unthinking forgery, and the
// server-side hook (`guard hook pre-receive`) is the check no client can talk round.

// remoteTips is what trustedRemoteTips found: the tips counted as on the remote and
// the remote's tracking refs that were not, each with why.
type remoteTips struct {
	tips       []string
	distrusted []string
}

// trustedRemoteTips returns the remote-tracking refs of remote that count as the
// remote's (see above). remote is the name git passed the hook (a URL when the push
// names no configured remote: then there are none). commonDir is the git common
// directory ("" to ask git).
func trustedRemoteTips(ctx context.Context, g gitrun.Git, remote, commonDir string) (remoteTips, error) {
	// The refspecs and the refs are asked of git at once.
	type listed struct {
		out []byte
		err error
	}
	lc := make(chan listed, 1)
	go func() {
		out, err := g.Run(ctx, "for-each-ref", "--format=%(refname)%00%(objectname)", "refs/remotes/")
		lc <- listed{out, err}
	}()
	specs, err := fetchDestinations(ctx, g)
	l := <-lc
	if err != nil {
		return remoteTips{}, err
	}
	own := specs[remote]
	if len(own) == 0 {
		return remoteTips{}, nil
	}
	out, err := l.out, l.err
	if err != nil {
		return remoteTips{}, err
	}
	if commonDir == "" {
		if commonDir, err = g.Line(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir"); err != nil {
			return remoteTips{}, err
		}
	}
	reftable := false
	if _, err := os.Stat(filepath.Join(commonDir, "reftable")); err == nil {
		reftable = true
	}
	var rt remoteTips
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, sha, ok := strings.Cut(line, "\x00")
		if !ok || matchLen(own, ref) < 0 {
			continue
		}
		if other, closer := ownedElsewhere(specs, remote, ref); closer {
			continue // the other remote's ref, not this one's
		} else if other != "" {
			rt.distrusted = append(rt.distrusted, fmt.Sprintf("%s (remote %q's fetch refspec maps to it as well)", ref, other))
			continue
		}
		var entry reflogEntry
		var rerr error
		if reftable {
			entry, rerr = newestReflogByGit(ctx, g, ref)
		} else {
			entry, rerr = newestReflogFile(filepath.Join(commonDir, "logs", filepath.FromSlash(ref)))
		}
		if rerr != nil {
			return remoteTips{}, rerr
		}
		if !entry.found && !reftable && packedOnly(commonDir, ref) {
			// git clone writes its tracking refs straight into packed-refs, without
			// a reflog, and gc packs refs and empties old reflogs: a ref kept only
			// in packed-refs, with no reflog to say otherwise, is git's own.
			rt.tips = append(rt.tips, sha)
			continue
		}
		if why := entry.distrust(remote, sha); why != "" {
			rt.distrusted = append(rt.distrusted, ref+" ("+why+")")
			continue
		}
		rt.tips = append(rt.tips, sha)
	}
	return rt, nil
}

// packedOnly reports whether ref has no loose file in commonDir, so that its value
// comes from packed-refs.
func packedOnly(commonDir, ref string) bool {
	_, err := os.Lstat(filepath.Join(commonDir, filepath.FromSlash(ref)))
	return errors.Is(err, fs.ErrNotExist)
}

// fetchDestinations maps every configured remote to the destination sides of its
// fetch refspecs (`refs/remotes/origin/*`), negative refspecs left out.
func fetchDestinations(ctx context.Context, g gitrun.Git) (map[string][]string, error) {
	out, err := g.Run(ctx, "config", "-z", "--get-regexp", `^remote\..*\.fetch$`)
	var ge *gitrun.Error
	if err != nil && errors.As(err, &ge) && ge.Code == 1 && len(bytes.TrimSpace(out)) == 0 {
		return map[string][]string{}, nil // exit 1: no remote has a fetch refspec
	}
	if err != nil {
		return nil, err
	}
	return parseFetchDestinations(out), nil
}

// parseFetchDestinations reads `git config -z --get-regexp` output: records of
// `remote.<name>.fetch\n<refspec>` ended by NUL.
func parseFetchDestinations(out []byte) map[string][]string {
	specs := map[string][]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		key, spec, ok := strings.Cut(rec, "\n")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".fetch")
		if name == key || name == "" {
			continue
		}
		spec = strings.TrimPrefix(strings.TrimSpace(spec), "+")
		if strings.HasPrefix(spec, "^") {
			continue
		}
		_, dst, ok := strings.Cut(spec, ":")
		if !ok || dst == "" {
			continue
		}
		specs[name] = append(specs[name], dst)
	}
	return specs
}

// matchLen is how closely a refspec destination of dsts matches ref: -1 for none, the
// length of the literal prefix for a glob (`refs/remotes/origin/*`, whose `*` spans
// slashes as git's refspec glob does), and more than any glob for an exact match.
func matchLen(dsts []string, ref string) int {
	best := -1
	for _, d := range dsts {
		pre, suf, glob := strings.Cut(d, "*")
		switch {
		case !glob && ref == d:
			return len(ref) + 1
		case glob && len(ref) > len(pre)+len(suf) && strings.HasPrefix(ref, pre) && strings.HasSuffix(ref, suf):
			best = max(best, len(pre))
		}
	}
	return best
}

// ownedElsewhere names another remote whose fetch refspecs map to ref as closely as
// remote's (closer false) or more closely (closer true); "" for none. A ref of
// `refs/remotes/origin/mirror/*` is the remote origin/mirror's, not origin's, and one
// that two remotes map to equally is neither's.
func ownedElsewhere(specs map[string][]string, remote, ref string) (name string, closer bool) {
	own := matchLen(specs[remote], ref)
	for other, dsts := range specs {
		if other == remote {
			continue
		}
		switch n := matchLen(dsts, ref); {
		case n > own:
			return other, true
		case n == own:
			name = other
		}
	}
	return name, false
}

// reflogEntry is the newest entry of a ref's reflog.
type reflogEntry struct {
	found   bool
	new     string
	message string
}

// distrust says why the entry does not vouch for the ref being remote's at sha
// ("" when it does).
func (e reflogEntry) distrust(remote, sha string) string {
	switch {
	case !e.found:
		return "no reflog says how it was written"
	case e.new != sha:
		return "changed since its newest reflog entry"
	case strings.HasPrefix(e.message, "update by push"), strings.HasPrefix(e.message, "clone: from "):
		return ""
	}
	cmd, _, _ := strings.Cut(e.message, ": ")
	words := strings.Fields(cmd)
	if len(words) == 0 || words[0] != "fetch" && words[0] != "pull" {
		return fmt.Sprintf("written by %q, not by a fetch or push", e.message)
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if fetchValued[w] {
				i++ // --depth 1: the value is not the repository
			}
			continue
		}
		if w != remote {
			return fmt.Sprintf("written by %q, a fetch from another repository", cmd)
		}
		break
	}
	return ""
}

// fetchValued are the options of git fetch and git pull that take the next word as
// their value when written apart.
var fetchValued = map[string]bool{
	"--depth": true, "--deepen": true, "--shallow-since": true, "--shallow-exclude": true,
	"-j": true, "--jobs": true, "-o": true, "--server-option": true, "--upload-pack": true,
	"--negotiation-tip": true, "--refmap": true, "--filter": true, "-s": true, "--strategy": true,
	"-X": true, "--strategy-option": true,
}

// newestReflogFile reads the last entry of a files-backend reflog:
// `<old> <new> <name> <<email>> <time> <tz>\t<message>`. A missing file is no entry.
func newestReflogFile(path string) (reflogEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return reflogEntry{}, nil
	}
	if err != nil {
		return reflogEntry{}, fmt.Errorf("reading the reflog %s: %w", path, err)
	}
	return parseReflogTail(data), nil
}

// parseReflogTail parses the last non-empty line of a reflog file.
func parseReflogTail(data []byte) reflogEntry {
	text := strings.TrimRight(string(data), "\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	head, msg, _ := strings.Cut(text, "\t")
	f := strings.Fields(head)
	if len(f) < 2 || !isHex(f[1]) {
		return reflogEntry{}
	}
	return reflogEntry{found: true, new: f[1], message: msg}
}

// newestReflogByGit asks git for ref's newest reflog entry (the reftable backend keeps
// no files).
func newestReflogByGit(ctx context.Context, g gitrun.Git, ref string) (reflogEntry, error) {
	out, err := g.Run(ctx, "log", "-g", "-1", "--format=%H%x00%gs", ref, "--")
	if err != nil {
		return reflogEntry{}, nil // no reflog: not counted
	}
	sha, msg, ok := strings.Cut(strings.TrimRight(string(out), "\n"), "\x00")
	if !ok || !isHex(sha) {
		return reflogEntry{}, nil
	}
	return reflogEntry{found: true, new: sha, message: msg}, nil
}
