package command_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/internal/webhook"
)

// receiver is a webhook endpoint that keeps what it was sent.
type receiver struct {
	mu     sync.Mutex
	posts  []map[string]any
	header []http.Header
	status int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var doc map[string]any
	_ = json.Unmarshal(body, &doc)
	rc.mu.Lock()
	rc.posts = append(rc.posts, doc)
	rc.header = append(rc.header, r.Header.Clone())
	status := rc.status
	rc.mu.Unlock()
	if status == 0 {
		status = http.StatusNoContent
	}
	w.WriteHeader(status)
}

func TestPruneWebhookPostsWhatWasRemoved(t *testing.T) {
	root := pruneFixture(t)
	a, b := filepath.Join(root, "a", "LOCK.txt"), filepath.Join(root, "b", "LOCK.team.x.h.txt")
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	// A dry run posts nothing.
	env, _, errb := readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, DryRun: true, Webhook: srv.URL + "/hook"}))
	assert.Empty(t, errb.String())
	assert.Empty(t, rc.posts, "a dry run never posts")

	env, out, errb := readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, JSON: true, Webhook: srv.URL + "/hook"}))
	assert.Empty(t, errb.String())
	require.Len(t, rc.posts, 1)
	var printed map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &printed))
	got := rc.posts[0]
	for k, v := range printed {
		assert.Equal(t, v, got[k], "the post carries prune --json's %q", k)
	}
	assert.Equal(t, []any{a, b}, got["removed"])
	assert.Equal(t, []any{a, b}, got["paths"], "the reference's paths")
	assert.Equal(t, "lock_expired", got["event"], "the reference's event name")
	assert.Equal(t, now.Format(time.RFC3339), got["time"])
	assert.Equal(t, now.Format(time.RFC3339), got["timestamp"])
	assert.Len(t, got, len(printed)+4)
	assert.Equal(t, "application/json; charset=utf-8", rc.header[0].Get("Content-Type"))
	assert.Equal(t, webhook.UserAgent, rc.header[0].Get("User-Agent"))

	// Nothing left to remove: nothing to say.
	env, _, _ = readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, Webhook: srv.URL + "/hook"}))
	assert.Len(t, rc.posts, 1, "a prune that removed nothing posts nothing")
}

func TestPruneWebhookFailureOnlyWarns(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"the receiver answers 500", func(t *testing.T) string {
			srv := httptest.NewServer(&receiver{status: http.StatusInternalServerError})
			t.Cleanup(srv.Close)
			return srv.URL
		}, "answered 500 Internal Server Error"},
		{"the receiver redirects", func(t *testing.T) string {
			srv := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere", http.StatusFound))
			t.Cleanup(srv.Close)
			return srv.URL
		}, "answered 302 Found"},
		{"nobody listens", func(t *testing.T) string {
			srv := httptest.NewServer(&receiver{})
			u := srv.URL
			srv.Close()
			return u
		}, "connection refused"},
		{"the receiver never answers", func(t *testing.T) string {
			done := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
				}
			}))
			t.Cleanup(func() { close(done); srv.Close() })
			return srv.URL
		}, "no answer within 300ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := pruneFixture(t)
			a := filepath.Join(root, "a", "LOCK.txt")
			env, out, errb := readEnv(root, nil)
			err := command.RunPrune(t.Context(), command.PruneOptions{Env: env, Webhook: c.setup(t), WebhookTimeout: 300 * time.Millisecond})
			require.NoError(t, err, "a failed webhook does not change the exit code")
			assert.Contains(t, out.String(), "removed "+a+"\n")
			assert.NoFileExists(t, a)
			assert.Contains(t, errb.String(), "guard prune: warning: webhook ")
			assert.Contains(t, errb.String(), c.want)
			assert.Contains(t, errb.String(), "(the locks were pruned all the same)\n")
		})
	}
}

func TestPruneWebhookRefusesABadURLBeforePruning(t *testing.T) {
	for _, u := range []string{"file:///tmp/x", "ftp://h/x", "http://", "not a url at all"} {
		root := pruneFixture(t)
		a := filepath.Join(root, "a", "LOCK.txt")
		env, out, _ := readEnv(root, nil)
		err := command.RunPrune(t.Context(), command.PruneOptions{Env: env, Webhook: u})
		assert.Equal(t, exitcode.Usage, exitcode.Of(err), u)
		assert.ErrorContains(t, err, "(nothing was pruned)")
		assert.Empty(t, out.String())
		assert.FileExists(t, a, "%s: nothing pruned", u)
	}
	err := webhook.Check("file:///tmp/x")
	assert.ErrorContains(t, err, "must use http(s)")
}
