package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/github"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/filelock"
	"github.com/guardlocks/guard/internal/gitrun"
)

// DefaultVisibilityTimeout bounds what the pre-push visibility check adds to a push.
const DefaultVisibilityTimeout = 2 * time.Second

// VisibilityCacheTTL is how long a learnt visibility is trusted.
const VisibilityCacheTTL = time.Hour

// cacheWait bounds the wait for another push updating the cache (a read and a write:
// milliseconds, unless that process is stopped).
const cacheWait = 10 * time.Second

// VisibilityOptions are the inputs of the pre-push visibility check.
type VisibilityOptions struct {
	Env *guard.Env
	// Dir is the top of the working tree being pushed from.
	Dir string
	// GitCommonDir is the repository's common git directory, where the answers are
	// cached (guard/visibility.json). Empty: found from Dir/.git.
	GitCommonDir string
	// RemoteURL is the URL the push goes to (pre-push's second argument).
	RemoteURL string
	// Timeout bounds the whole check (0: DefaultVisibilityTimeout).
	Timeout time.Duration
	// HTTPClient is the client go-github uses (nil: a default one).
	HTTPClient *http.Client
}

// PushVisibility is the pre-push check of PRIVATE.txt against the remote's
// visibility. When PRIVATE.txt governs Dir and RemoteURL names a GitHub repository
// (on github.com, or on the host of GITHUB_API_URL / api_url, which is then the API
// asked) that is public,
// it refuses: an outcome Refused with the explanation. When the
// visibility cannot be learnt in time (offline, rate-limited, a token GitHub
// rejects), it returns a warning for stderr, or refuses when .guard.toml says
// [github] strict = true. Anything else passes silently. A 404 counts as "not
// public": GitHub shows every public repository to anyone, token or not. What the
// visibility means against the markers is guard.JudgeVisibility's decision, the
// audit's too; GUARD_BYPASS is the caller's (the hook's) to apply.
func PushVisibility(ctx context.Context, opts VisibilityOptions) (warning string, err error) {
	env := opts.Env
	markers := guard.FindMarkers(opts.Dir)
	if len(markers.Private) == 0 {
		return "", nil
	}
	key, ok := github.ParseRemoteURL(opts.RemoteURL)
	if !ok {
		return "", nil
	}
	key, _ = github.ResolveAlias(key, github.LoadSSHHostAliases(env.Home()))
	subject, err := guard.ResolveSubject(env, opts.Dir, guard.Identity{})
	cfg := subject.Config
	if err != nil {
		return "", guard.Fail(guard.BadInput, "pre-push visibility check: %w", err)
	}
	// The API that answers for the remote: GITHUB_API_URL or api_url when set (an
	// Enterprise server, or a stand-in for github.com's API), else github.com's.
	// Remotes on any other host are not GitHub repositories guard knows of.
	apiURL := github.APIURL(env, "", cfg)
	if key.Host() != github.WebHost(apiURL) && key.Host() != "github.com" {
		return "", nil
	}
	full := key.Owner() + "/" + key.Name()

	cachePath := ""
	if common := opts.GitCommonDir; common != "" || opts.Dir != "" {
		if common == "" {
			common = gitrun.CommonDir(opts.Dir)
		}
		if common != "" {
			cachePath = filepath.Join(common, "guard", "visibility.json")
		}
	}
	now := env.Clock.Now()
	vis, cached := readVisibilityCache(cachePath, key, now)
	var reason string
	if !cached {
		timeout := opts.Timeout
		if timeout <= 0 {
			timeout = DefaultVisibilityTimeout
		}
		tctx, cancel := context.WithTimeout(ctx, timeout)
		vis, reason = github.FetchVisibility(tctx, apiURL, github.Token(env), opts.HTTPClient, env, key)
		cancel()
		if vis != "" {
			writeVisibilityCache(ctx, cachePath, key, vis, now)
		}
	}
	private := markers.Private[0]
	verdict := guard.JudgeVisibility(vis, true, len(markers.Public) > 0)
	strict := cfg.GitHub.Strict
	switch {
	case verdict == guard.VerdictViolation:
		return "", guard.Fail(guard.Refused, "%s", publicRefusal(private, key, full))
	case verdict == guard.VerdictUnknown && verdict.RefusesPush(strict):
		return "", guard.Fail(guard.Refused,
			"pre-push refused: %s has PRIVATE.txt (%s) and the visibility of %s could not be learnt (%s); [github] strict = true in %s refuses such a push. Retry when GitHub is reachable, or set GH_TOKEN",
			opts.Dir, private.Path, key, reason, guard.ConfigFileName)
	case verdict == guard.VerdictUnknown:
		return fmt.Sprintf("guard: warning: could not learn whether %s is public (%s); %s forbids pushing this project to a public repository. Set [github] strict = true in %s to refuse pushes in this case",
			key, reason, private.Path, guard.ConfigFileName), nil
	case verdict.RefusesPush(strict):
		// A verdict guard.JudgeVisibility adds later refuses, with what it is.
		return "", guard.Fail(guard.Refused, "pre-push refused: %s is %s and %s governs this project: %s", full, vis, private.Path, verdict)
	}
	return "", nil
}

func publicRefusal(private *guard.Marker, key github.RepoKey, full string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pre-push refused: %s is PUBLIC on %s, but %s says this project must not be published.\n", full, key.Host(), private.Path)
	if c := strings.TrimSpace(private.Content); c != "" {
		b.WriteString("  PRIVATE.txt says:\n")
		for _, l := range strings.Split(c, "\n") {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	fmt.Fprintf(&b, "  what now: push to a private repository, or make %s private (gh repo edit %s --visibility private --accept-visibility-change-consequences);\n", full, full)
	b.WriteString("  if publication is intended and its conditions are met, replace PRIVATE.txt with PUBLIC.txt.")
	return b.String()
}

// visibilityCache is guard/visibility.json in the git directory.
type visibilityCache struct {
	Entries map[github.RepoKey]visibilityEntry `json:"entries"`
}

type visibilityEntry struct {
	Visibility string    `json:"visibility"`
	CheckedAt  time.Time `json:"checked_at"`
}

func loadVisibilityCache(path string) visibilityCache {
	c := visibilityCache{Entries: map[github.RepoKey]visibilityEntry{}}
	if path == "" {
		return c
	}
	if data, err := os.ReadFile(path); err == nil {
		// A damaged cache is just a cold one.
		if json.Unmarshal(data, &c) != nil || c.Entries == nil {
			c.Entries = map[github.RepoKey]visibilityEntry{}
		}
	}
	return c
}

func readVisibilityCache(path string, key github.RepoKey, now time.Time) (string, bool) {
	e, ok := loadVisibilityCache(path).Entries[key]
	if !ok || e.Visibility == "" || now.Before(e.CheckedAt) || now.Sub(e.CheckedAt) > VisibilityCacheTTL {
		return "", false
	}
	return e.Visibility, true
}

// writeVisibilityCache records an answer, under the cache's mutex so that a
// concurrent push's answer is kept. Failing to cache only costs a request next time,
// so errors are dropped.
func writeVisibilityCache(ctx context.Context, path string, key github.RepoKey, vis string, now time.Time) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cacheWait)
	defer cancel()
	release, err := filelock.Beside(path).Lock(ctx)
	if err != nil {
		return
	}
	defer release()
	c := loadVisibilityCache(path)
	for k, e := range c.Entries {
		if now.Sub(e.CheckedAt) > VisibilityCacheTTL {
			delete(c.Entries, k)
		}
	}
	c.Entries[key] = visibilityEntry{Visibility: vis, CheckedAt: now.UTC()}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return
	}
	_ = atomicfile.Write(path, append(data, '\n'), 0o600)
}
