// Package etcd holds a project's locks in etcd (CONTRACT.md section 10): leases are a
// lock's lifetime, transactions its atomic claim, revisions its fence, and watches
// what a waiting claim waits on.
//
// # Key layout
//
// Every key of a project lives under
//
//	<prefix><project>/            prefix default "/guard/", project path-escaped
//
// A folder lock is one key whose path follows the lock's folder, one `d:` segment per
// folder from the project root, then the lock's name, lower-cased, after `f:`:
//
//	/guard/github.com%2Fo%2Fr/locks/f:lock.txt               LOCK.txt at the root
//	/guard/github.com%2Fo%2Fr/locks/d:src/d:api/f:lock.txt   src/api/LOCK.txt
//
// so that the locks of one folder are the range `.../d:src/d:api/f:` and the locks in
// a folder and everything below it are the range `.../d:src/d:api/` (a folder name
// cannot hold a slash, so no other folder shares either range). A claim in src/api is
// one transaction that compares, at the revision its judgement read, the ranges of
// every folder above (`.../locks/f:`, `.../locks/d:src/f:`) and the whole range of
// src/api itself: if any lock in an area that overlaps the claim changed since (a
// claim, a renewal, a release), the transaction fails and guard judges again. Locks
// elsewhere in the project never make it retry.
//
// A resource lock is `<prefix><project>/resources/<uri, path-escaped>`.
//
// The project is taken as canonicalProject gives it: on a host that ignores the case
// of owner and repository names (GitHub, GitLab), github.com/Acme/Proj and
// github.com/acme/proj are one repository, so they are one project.
//
// The value is JSON: the folder (slash-separated, relative to the project root), the
// lock file's name as written, the resource URI, and the lock file's body without its
// fence line. A key's create revision is the lock's fence; its lease, the lifetime.
package etcd

import (
	"net/url"
	"strings"
)

// layout builds the keys of one project.
type layout struct {
	base string // <prefix><project>/
}

func newLayout(prefix, project string) layout {
	return layout{base: prefix + url.PathEscape(canonicalProject(project)) + "/"}
}

// caseFreeHosts are the hosts whose repository paths ignore case (github.com/Acme/Proj
// is github.com/acme/proj), each with the hosts that reach the same repositories over
// ssh on port 443. An unknown host keeps its case: a self-hosted server may tell
// Proj from proj.
var caseFreeHosts = map[string]string{
	"github.com": "github.com", "ssh.github.com": "github.com", "www.github.com": "github.com",
	"gitlab.com": "gitlab.com", "altssh.gitlab.com": "gitlab.com", "www.gitlab.com": "gitlab.com",
}

// canonicalProject is the project id keys are built from: a project id of the form
// host/path (what guard derives from the origin remote, or a project_id written that
// way) on a host of caseFreeHosts is lower-cased, its host named one way; any other id
// is kept as written.
func canonicalProject(project string) string {
	host, path, ok := strings.Cut(project, "/")
	if !ok {
		return project
	}
	canon, known := caseFreeHosts[strings.ToLower(host)]
	if !known {
		return project
	}
	return canon + "/" + strings.ToLower(path)
}

func (k layout) locks() string     { return k.base + "locks/" }
func (k layout) resources() string { return k.base + "resources/" }

// dirPrefix is the range of the locks in dir and below it.
func (k layout) dirPrefix(dir string) string {
	var b strings.Builder
	b.WriteString(k.locks())
	for _, seg := range segments(dir) {
		b.WriteString("d:")
		b.WriteString(seg)
		b.WriteString("/")
	}
	return b.String()
}

// here is the range of the locks directly in dir.
func (k layout) here(dir string) string { return k.dirPrefix(dir) + "f:" }

// lockKey is the key of the lock name in dir.
func (k layout) lockKey(dir, name string) string { return k.here(dir) + strings.ToLower(name) }

func (k layout) resourceKey(uri string) string { return k.resources() + url.PathEscape(uri) }

func segments(dir string) []string {
	if dir == "" || dir == "." {
		return nil
	}
	return strings.Split(dir, "/")
}

// maxCompares keeps a claim's transaction within etcd's default limit of operations
// (128); a deeper folder compares the whole project instead, which is still exact,
// only retried more often.
const maxCompares = 100

// overlapping are the compares of a claim of a lock in dir judged at revision since:
// no lock changed after since in a folder above dir, in dir, or below dir.
func (k layout) overlapping(dir string, since int64) []compare {
	segs := segments(dir)
	if len(segs)+1 > maxCompares {
		return []compare{unchangedSince(k.locks(), since)}
	}
	cmps := make([]compare, 0, len(segs)+1)
	for i := range segs {
		cmps = append(cmps, unchangedSince(k.here(strings.Join(segs[:i], "/")), since))
	}
	return append(cmps, unchangedSince(k.dirPrefix(dir), since))
}

// unchangedSince compares every key under prefix: none modified after revision since.
func unchangedSince(prefix string, since int64) compare {
	return compare{Result: cmpLess, Target: targetMod, Key: []byte(prefix), RangeEnd: prefixEnd(prefix), Revision: since + 1}
}

// createdAt compares key's create revision with rev (0: the key does not exist).
func createdAt(key string, rev int64) compare {
	return compare{Result: cmpEqual, Target: targetCreate, Key: []byte(key), Revision: rev}
}
