package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
)

// The near-lock search lists every folder of a project, which is most of the hook's
// time on a large one. A folder's listing only matters for two things (its subfolders,
// and whether a file in it is named like a lock), and both change only when an entry
// is created, removed or renamed in it, which sets the folder's ctime to now; nothing
// in user space can set a ctime back. So the search keeps, per project, the listing of
// each folder with the stamp (device, inode, ctime) it had before it was listed, in
// guard's state directory, and on the next search a folder whose stamp is the same is
// not listed again: one lstat instead of open, two getdents and close. The locks in
// folders that hold one are still read every time (a lock's content is not cached).
//
// A change in the same clock tick as the stamp could leave the ctime as it was: a
// stamp counts only when it is older than the cache file by more than nearRacy (more
// than a whole search can last), as git treats a racily clean index entry. A cache
// that cannot be read, or is for another folder, is ignored: the folders are listed.

// nearRacy is how much older than the cache file a stamp must be to be trusted: the
// longest a search lasts (nearLockLimit) and a margin.
const nearRacy = nearLockLimit + 2*time.Second

const nearCacheMagic = "guard-near-v1"

// dirStamp identifies a folder's state of entries.
type dirStamp struct {
	dev, ino uint64
	ctime    int64 // nanoseconds
}

// nearEntry is what the search keeps of one folder.
type nearEntry struct {
	stamp   dirStamp
	hasLock bool
	subdirs []string
}

// nearCache is the cache of one project's folders.
type nearCache struct {
	path   string
	root   string
	loaded map[string]nearEntry // by folder path relative to root ("." for root)
	// trustBefore: stamps with a ctime before it are trusted (the cache file's mtime
	// less nearRacy).
	trustBefore int64
	// fromCache are the folders the search took from the cache, fresh those it
	// listed: together, what a complete search saw.
	fromCache []string
	fresh     map[string]nearEntry
}

// openNearCache reads the cache of root; a cache that cannot be had (no state
// directory, another platform) is an empty one that is never written.
func openNearCache(env *guard.Env, root string) *nearCache {
	c := &nearCache{root: root, loaded: map[string]nearEntry{}, fresh: map[string]nearEntry{}}
	if !stampsSupported {
		return c
	}
	state, err := guard.StateDir(env)
	if err != nil {
		return c
	}
	sum := sha256.Sum256([]byte(root))
	c.path = filepath.Join(state, "near", hex.EncodeToString(sum[:12]))
	f, err := os.Open(c.path)
	if err != nil {
		return c
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > 64<<20 {
		return c
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return c
	}
	c.trustBefore = st.ModTime().UnixNano() - int64(nearRacy)
	if loaded, ok := parseNearCache(data, root); ok {
		c.loaded = loaded
		c.fromCache = make([]string, 0, len(loaded))
	}
	return c
}

// lookup returns the kept listing of dir when its stamp still is st and old enough.
func (c *nearCache) lookup(rel string, st dirStamp) (nearEntry, bool) {
	e, ok := c.loaded[rel]
	if !ok || e.stamp != st || st.ctime >= c.trustBefore {
		return nearEntry{}, false
	}
	return e, true
}

// keep records what the search saw of a folder: a listing, or the cache's entry.
func (c *nearCache) keep(rel string, e nearEntry, fromCache bool) {
	if fromCache {
		c.fromCache = append(c.fromCache, rel)
	} else {
		c.fresh[rel] = e
	}
}

// save writes what a complete search saw (folders gone since drop out), unless that
// is the cache as it was.
func (c *nearCache) save() {
	if c.path == "" || (len(c.fresh) == 0 && len(c.fromCache) == len(c.loaded)) {
		return
	}
	var b bytes.Buffer
	b.WriteString(nearCacheMagic)
	b.WriteByte(0)
	b.WriteString(c.root)
	b.WriteByte(0)
	write := func(rel string, e nearEntry) {
		b.WriteString(rel)
		b.WriteByte(0)
		for _, n := range []uint64{e.stamp.dev, e.stamp.ino, uint64(e.stamp.ctime), boolNum(e.hasLock), uint64(len(e.subdirs))} {
			b.WriteString(strconv.FormatUint(n, 10))
			b.WriteByte(0)
		}
		for _, s := range e.subdirs {
			b.WriteString(s)
			b.WriteByte(0)
		}
	}
	for _, rel := range c.fromCache {
		write(rel, c.loaded[rel])
	}
	for rel, e := range c.fresh {
		write(rel, e)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return
	}
	// A cache: losing it costs time only, and parseNearCache rejects a cut one or
	// reads its complete entries (a folder missing from it is listed).
	_ = atomicfile.WriteCache(c.path, b.Bytes(), 0o600)
}

func boolNum(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// parseNearCache reads a cache written for root; anything malformed is no cache. It
// walks the NUL-terminated fields in place (a cache of 1,000 folders has 8,000 of
// them, and the hook reads it on every search).
func parseNearCache(data []byte, root string) (map[string]nearEntry, bool) {
	text := string(data)
	next := func() (string, bool) {
		i := strings.IndexByte(text, 0)
		if i < 0 {
			return "", false
		}
		f := text[:i]
		text = text[i+1:]
		return f, true
	}
	if magic, ok := next(); !ok || magic != nearCacheMagic {
		return nil, false
	}
	if r, ok := next(); !ok || r != root {
		return nil, false
	}
	out := make(map[string]nearEntry, strings.Count(text, "\x00")/6)
	for text != "" {
		rel, _ := next()
		var nums [5]uint64
		for i := range nums {
			f, ok := next()
			if !ok {
				return nil, false
			}
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, false
			}
			nums[i] = n
		}
		nsub := nums[4]
		if nums[3] > 1 {
			return nil, false
		}
		e := nearEntry{stamp: dirStamp{dev: nums[0], ino: nums[1], ctime: int64(nums[2])}, hasLock: nums[3] == 1}
		if nsub > 0 {
			e.subdirs = make([]string, 0, min(nsub, 1024)) // a count, not trusted for memory
		}
		for range nsub {
			sub, ok := next()
			if !ok {
				return nil, false
			}
			if sub == "" || sub == "." || sub == ".." || strings.Contains(sub, "/") {
				return nil, false
			}
			e.subdirs = append(e.subdirs, sub)
		}
		out[rel] = e
	}
	return out, true
}
