package classify

import (
	"github.com/guardlocks/guard/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// gh api (and curl and its kind against GitHub's API) are judged by the method,
// the endpoint and the body: a write that creates or publishes a release, or that
// can make a repository public, is a publication. A body guard cannot read (a file
// that is missing, too large or not a regular file, or standard input) on such an
// endpoint fails closed.

// maxBody is the size of a request body file guard reads (gh api --input,
// -F field=@file); a larger one counts as unreadable.
const maxBody = 1 << 20

// apiCall is a GitHub API request as a command line describes it.
type apiCall struct {
	method   string // upper case; "" until known
	endpoint string // normalised: lower case, no host, no leading "/" or query
	// bodies are the texts sent: field values (name=value), bodies read from files.
	bodies []string
	// unreadable names the bodies guard could not read.
	unreadable []string
	hasBody    bool
	// offline: the client only prints the request (HTTPie's and xh's --offline).
	offline bool
}

// Endpoints that publish.
var (
	releaseCreatePath = lazyre.New(`^repos/[^/]+/[^/]+/releases$`)
	releaseEditPath   = lazyre.New(`^repos/[^/]+/[^/]+/releases/[^/]+$`)
	releaseAssetPath  = lazyre.New(`^repos/[^/]+/[^/]+/releases/[^/]+/assets$`)
	repoEditPath      = lazyre.New(`^repos/[^/]+/[^/]+$`)
	repoCreatePath    = lazyre.New(`^(user|orgs/[^/]+)/repos$|^repos/[^/]+/[^/]+/generate$`)
	gistCreatePath    = lazyre.New(`^gists$`)
	gistEditPath      = lazyre.New(`^gists/[^/]+$`)
	pagesPath         = lazyre.New(`^repos/[^/]+/[^/]+/pages(/builds|/deployments)?$`)
	packageRestore    = lazyre.New(`^(user|users/[^/]+|orgs/[^/]+)/packages/[^/]+/[^/]+(/versions/[^/]+)?/restore$`)
	advisoryEditPath  = lazyre.New(`^repos/[^/]+/[^/]+/security-advisories/[^/]+$`)
	// A field as gh api (-f private=false), JSON ("private": false) and HTTPie
	// (private:=false, private=false) write it.
	privateFalse   = lazyre.New(`"?private"?\s*(?::=|[=:])\s*"?(false|0|no)\b`)
	privateTrue    = lazyre.New(`"?private"?\s*(?::=|[=:])\s*"?(true|1|yes)\b`)
	publicTrue     = lazyre.New(`"?public"?\s*(?::=|[=:])\s*"?(true|1|yes)\b`)
	publicFalse    = lazyre.New(`"?public"?\s*(?::=|[=:])\s*"?(false|0|no)\b`)
	visibilityKV   = lazyre.New(`visibility"?\s*(?::=|[=:])\s*"?(\w+)`)
	draftFalse     = lazyre.New(`"?draft"?\s*(?::=|[=:])\s*"?(false|0|no)\b`)
	statePublished = lazyre.New(`"?state"?\s*(?::=|[=:])\s*"?published\b`)
)

// normalEndpoint strips the scheme, host and API prefix, the query and the slashes
// around a REST path: https://api.github.com/repos/o/r/ → repos/o/r.
func normalEndpoint(e string) string {
	e = strings.ToLower(strings.TrimSpace(e))
	if i := strings.Index(e, "://"); i >= 0 {
		e = e[i+3:]
		if j := strings.IndexByte(e, '/'); j >= 0 {
			e = e[j:]
		} else {
			e = ""
		}
	}
	if i := strings.IndexAny(e, "?#"); i >= 0 {
		e = e[:i]
	}
	// HTTPie and xh take a URL without its scheme (api.github.com/repos/o/r): a
	// first segment with a dot or a port is a host.
	if host, rest, ok := strings.Cut(strings.TrimLeft(e, "/"), "/"); ok && !strings.HasPrefix(e, "/") && strings.ContainsAny(host, ".:") {
		e = rest
	}
	e = strings.Trim(e, "/")
	e = strings.TrimPrefix(e, "api/v3/")
	if e == "api/graphql" {
		e = "graphql"
	}
	return e
}

// readBody reads a request body file named on the command line (relative to dir);
// ok is false when it cannot be read whole: standard input ("-"), a file that is
// missing, not regular (a FIFO would block), a device or kernel file, or over
// maxBody.
func readBody(dir, name string) (string, bool) {
	if name == "-" || name == "" {
		return "", false
	}
	p := Resolve(dir, name)
	if slashed := filepath.ToSlash(p); strings.HasPrefix(slashed, "/dev/") || strings.HasPrefix(slashed, "/proc/") || strings.HasPrefix(slashed, "/sys/") {
		// Device and kernel files can block a reader (/proc/kmsg) or change.
		return "", false
	}
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxBody {
		return "", false
	}
	if st.Size() == 0 {
		return "", true
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBody+1))
	if err != nil || len(data) > maxBody {
		return "", false
	}
	return string(data), true
}

// parseGhAPI reads gh api's arguments (after "api") as pflag does: the last -X
// wins, short options group (-iXPATCH), -F name=@file and --input file read files,
// and fields without -X make the method POST.
func parseGhAPI(rest []string, dir string) (apiCall, []string) {
	var call apiCall
	var pos []string
	valuedShort := "XfFHpqt"
	valuedLong := map[string]bool{"--method": true, "--field": true, "--raw-field": true, "--header": true, "--preview": true, "--jq": true, "--template": true, "--input": true, "--hostname": true, "--cache": true}
	take := func(name, value string) {
		switch name {
		case "-X", "--method":
			call.method = strings.ToUpper(strings.TrimSpace(value))
		case "-f", "--raw-field":
			call.hasBody = true
			call.bodies = append(call.bodies, value)
		case "-F", "--field":
			call.hasBody = true
			k, v, _ := strings.Cut(value, "=")
			if file, ok := strings.CutPrefix(v, "@"); ok {
				if text, ok := readBody(dir, file); ok {
					call.bodies = append(call.bodies, k+"="+text)
				} else {
					call.unreadable = append(call.unreadable, "-F "+value)
				}
			} else {
				call.bodies = append(call.bodies, value)
			}
		case "--input":
			call.hasBody = true
			if text, ok := readBody(dir, value); ok {
				call.bodies = append(call.bodies, text)
			} else {
				call.unreadable = append(call.unreadable, "--input "+value)
			}
		}
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(w, "--"):
			name, value, eq := strings.Cut(w, "=")
			if valuedLong[name] && !eq {
				if i+1 < len(rest) {
					value = rest[i+1]
				}
				i++
			}
			take(name, value)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			// A group of one-letter options; a valued one takes the rest of the
			// word, or the next word.
			for j := 1; j < len(w); j++ {
				if !strings.ContainsRune(valuedShort, rune(w[j])) {
					continue
				}
				value := w[j+1:]
				if value == "" {
					if i+1 < len(rest) {
						value = rest[i+1]
					}
					i++
				}
				take("-"+w[j:j+1], value)
				break
			}
		default:
			pos = append(pos, w)
		}
	}
	if call.method == "" {
		call.method = "GET"
		if call.hasBody {
			call.method = "POST"
		}
	}
	if len(pos) > 0 {
		call.endpoint = normalEndpoint(pos[0])
	}
	return call, pos
}

// judge tells what the call publishes: the operation ("" for nothing) and why.
//
// Every word of the command line counts as well as the parsed bodies, so that
// spellings guard does not parse (a field after "--", an option it does not know)
// still count when they ask for public visibility.
func (c apiCall) judge(words []string) (op, why string) {
	text := strings.ToLower(strings.Join(append(append([]string(nil), c.bodies...), words...), "\n"))
	write := c.method != "GET" && c.method != "HEAD"
	unreadable := ""
	if len(c.unreadable) > 0 {
		unreadable = " (" + strings.Join(c.unreadable, ", ") + " cannot be read: fail closed)"
	}
	// A field or body that asks for public visibility counts on any endpoint
	// (unusual spellings, GraphQL variables).
	if m := visibilityKV.FindStringSubmatch(text); m != nil && m[1] == "public" || strings.Contains(text, "visibility") && strings.Contains(text, "public") {
		return OpVisibilityPublic, "the call sets visibility to public"
	}
	if privateFalse.MatchString(text) {
		return OpVisibilityPublic, "the call sets private=false"
	}
	if c.endpoint == "graphql" {
		if len(c.unreadable) > 0 {
			return OpVisibilityPublic, "a GraphQL query guard cannot read may be a mutation that makes a repository public or publishes a release" + unreadable
		}
		if !strings.Contains(text, "mutation") {
			return "", "a GraphQL query changes nothing"
		}
		switch {
		case strings.Contains(text, "release"):
			return OpPublishRelease, "a GraphQL mutation about a release"
		case strings.Contains(text, "visibility") && strings.Contains(text, "$"):
			return OpVisibilityPublic, "a GraphQL mutation sets visibility from a variable guard cannot see"
		case strings.Contains(text, "createrepository") && !strings.Contains(text, "visibility"):
			return OpVisibilityPublic, "a GraphQL createRepository mutation without a visibility"
		}
		return "", "the GraphQL mutation changes no visibility and publishes no release"
	}
	if !write {
		return "", "a " + c.method + " request changes nothing"
	}
	switch {
	case releaseCreatePath.MatchString(c.endpoint) && c.method == "POST":
		return OpPublishRelease, "POST " + c.endpoint + " creates a release"
	case releaseAssetPath.MatchString(c.endpoint) && c.method != "DELETE":
		return OpPublishRelease, c.method + " " + c.endpoint + " uploads a release asset"
	case releaseEditPath.MatchString(c.endpoint) && c.method != "DELETE" && !strings.HasSuffix(c.endpoint, "/generate-notes"):
		if len(c.unreadable) > 0 {
			return OpPublishRelease, c.method + " " + c.endpoint + " with a body guard cannot read may publish a draft" + unreadable
		}
		if draftFalse.MatchString(text) {
			return OpPublishRelease, c.method + " " + c.endpoint + " with draft=false publishes a draft release"
		}
	case repoCreatePath.MatchString(c.endpoint) && c.method == "POST":
		if len(c.unreadable) > 0 {
			return OpVisibilityPublic, "creating a repository with a body guard cannot read" + unreadable
		}
		if !privateTrue.MatchString(text) && !visibilityKV.MatchString(text) {
			return OpVisibilityPublic, "the call creates a repository without private=true; GitHub makes it public"
		}
	case repoEditPath.MatchString(c.endpoint) && c.method != "DELETE":
		if len(c.unreadable) > 0 {
			return OpVisibilityPublic, c.method + " " + c.endpoint + " with a body guard cannot read may make it public" + unreadable
		}
	case gistCreatePath.MatchString(c.endpoint) && c.method == "POST":
		// GitHub makes a gist secret unless public is true (gh gist create
		// without --public likewise publishes nothing).
		if len(c.unreadable) > 0 {
			return OpVisibilityPublic, "creating a gist with a body guard cannot read may make a public one" + unreadable
		}
		if publicTrue.MatchString(text) {
			return OpVisibilityPublic, "POST gists with public=true creates a public gist"
		}
	case gistEditPath.MatchString(c.endpoint) && (c.method == "PATCH" || c.method == "POST") && c.hasBody:
		return OpVisibilityPublic, c.method + " " + c.endpoint + " changes a gist's files, which everyone reads when the gist is public (guard cannot tell whether it is)" + unreadable
	case pagesPath.MatchString(c.endpoint) && (c.method == "POST" || c.method == "PUT"):
		if len(c.unreadable) == 0 && publicFalse.MatchString(text) && !publicTrue.MatchString(text) {
			return "", c.method + " " + c.endpoint + " with public=false makes the Pages site private"
		}
		return OpVisibilityPublic, c.method + " " + c.endpoint + " publishes the repository's GitHub Pages site" + unreadable
	case packageRestore.MatchString(c.endpoint) && c.method == "POST":
		return OpRegistryUpload, "POST " + c.endpoint + " restores a deleted package, publishing it again"
	case advisoryEditPath.MatchString(c.endpoint) && (c.method == "PATCH" || c.method == "PUT"):
		if len(c.unreadable) > 0 {
			return OpVisibilityPublic, c.method + " " + c.endpoint + " with a body guard cannot read may publish the security advisory" + unreadable
		}
		if statePublished.MatchString(text) {
			return OpVisibilityPublic, c.method + " " + c.endpoint + " with state=published publishes the security advisory"
		}
	}
	return "", c.method + " " + c.endpoint + " changes no visibility and publishes no release"
}

// ghAPI classifies gh api's arguments (after "api").
func ghAPI(rest []string, dir string) Classification {
	call, _ := parseGhAPI(rest, dir)
	op, why := call.judge(rest)
	if op == "" {
		return nothing(dir, "gh api: "+why, "gh", "api")
	}
	return known(op, "gh api: "+why, dir, "gh", "api")
}

// httpGitHubCall classifies curl, wget, HTTPie and xh calls to GitHub's API the way
// gh api's are (nothing when the call does not go to GitHub's API).
func httpGitHubCall(prog string, rest []string, dir string) Classification {
	if !mentionsGitHubAPI(rest) {
		return Classification{}
	}
	call := apiCall{}
	httpie := prog == "http" || prog == "https" || prog == "xh"
	if httpie {
		call = parseHTTPie(rest, dir)
	}
	for i := 0; i < len(rest) && !httpie; i++ {
		w := rest[i]
		name, value, eq := strings.Cut(w, "=")
		next := func() string {
			if eq {
				return value
			}
			if i+1 < len(rest) {
				i++
				return rest[i]
			}
			return ""
		}
		switch {
		case name == "-X" || name == "--request" || name == "--method":
			call.method = strings.ToUpper(next())
		case strings.HasPrefix(w, "-X") && len(w) > 2:
			call.method = strings.ToUpper(w[2:])
		case name == "-d" || strings.HasPrefix(name, "--data") || name == "--json" || name == "--post-data" || name == "--body-data" || name == "-F" || name == "--form":
			call.hasBody = true
			v := next()
			if file, ok := strings.CutPrefix(v, "@"); ok {
				if text, ok := readBody(dir, file); ok {
					call.bodies = append(call.bodies, text)
				} else {
					call.unreadable = append(call.unreadable, name+" "+v)
				}
			} else {
				call.bodies = append(call.bodies, v)
			}
		case name == "-T" || name == "--upload-file" || name == "--post-file" || name == "--body-file":
			call.hasBody = true
			if text, ok := readBody(dir, next()); ok {
				call.bodies = append(call.bodies, text)
			} else {
				call.unreadable = append(call.unreadable, name)
			}
		case !strings.HasPrefix(w, "-") && call.endpoint == "" && strings.Contains(strings.ToLower(w), "github"):
			call.endpoint = normalEndpoint(w)
		}
	}
	if call.method == "" {
		call.method = "GET"
		if call.hasBody {
			call.method = "POST"
		}
	}
	op, why := call.judge(rest)
	if op == "" {
		return Classification{}
	}
	c := known(op, prog+": "+why, dir, prog)
	if call.offline {
		c.DryRun, c.Why = true, prog+" --offline prints the request and sends nothing"
	}
	return c
}

// mentionsGitHubAPI reports a GitHub API URL (github.com's or an Enterprise /api/v3).
func mentionsGitHubAPI(words []string) bool {
	for _, w := range words {
		if lw := strings.ToLower(w); strings.Contains(lw, "api.github.com") || strings.Contains(lw, "uploads.github.com") || strings.Contains(lw, "/api/v3/") || strings.Contains(lw, "/api/graphql") {
			return true
		}
	}
	return false
}

// httpieValued are the options of HTTPie and xh that take the next word as their value.
var httpieValued = map[string]bool{
	"-a": true, "--auth": true, "-A": true, "--auth-type": true, "-o": true, "--output": true,
	"--session": true, "--session-read-only": true, "--verify": true, "--cert": true, "--cert-key": true,
	"--cert-key-pass": true, "--proxy": true, "--timeout": true, "--pretty": true, "-s": true, "--style": true,
	"-p": true, "--print": true, "--format-options": true, "--max-redirects": true, "--default-scheme": true,
	"--boundary": true, "--raw": true, "--bearer": true, "--ssl": true, "--ciphers": true, "--response-charset": true,
	"--response-mime": true, "--chunked-size": true, "--unix-socket": true, "-x": false,
}

// httpMethods are the methods HTTPie and xh take as their first positional word
// (any case).
var httpMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// parseHTTPie reads HTTPie's (http, https) and xh's command line: `[METHOD] URL
// [ITEM...]`, where an item `name=value` or `name:=json` is a body field (the method
// then defaults to POST), `name=@file` and `name:=@file` take the field from a file,
// `@file` is the whole body,
// `name==value` is a query parameter and `name:value` a header. --raw is the body
// itself. A write with no body on the command line sends standard input, unless
// --ignore-stdin (-I) says not to: that body cannot be read (fail closed).
func parseHTTPie(rest []string, dir string) apiCall {
	var call apiCall
	var pos []string
	ignoreStdin := false
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			name, value, eq := strings.Cut(w, "=")
			if httpieValued[name] && !eq {
				if i+1 < len(rest) {
					value = rest[i+1]
				}
				i++
			}
			switch {
			case name == "--raw":
				call.hasBody = true
				call.bodies = append(call.bodies, value)
			case name == "--ignore-stdin" || name == "-I":
				ignoreStdin = true
			case name == "--offline":
				call.offline = true
			case !strings.HasPrefix(w, "--") && strings.Contains(w[1:], "I"):
				ignoreStdin = true // a group of short flags (-Iv)
			}
		default:
			pos = append(pos, w)
		}
	}
	if len(pos) > 1 && httpMethods[strings.ToUpper(pos[0])] {
		call.method = strings.ToUpper(pos[0])
		pos = pos[1:]
	}
	if len(pos) > 0 {
		call.endpoint = normalEndpoint(pos[0])
		pos = pos[1:]
	}
	for _, item := range pos {
		if file, ok := strings.CutPrefix(item, "@"); ok {
			// @file: the whole body, read from the file.
			call.hasBody = true
			if text, ok := readBody(dir, file); ok {
				call.bodies = append(call.bodies, text)
			} else {
				call.unreadable = append(call.unreadable, item)
			}
			continue
		}
		i := strings.IndexAny(item, ":=@")
		if i <= 0 {
			continue
		}
		op := item[i:]
		switch {
		case strings.HasPrefix(op, "=="), strings.HasPrefix(op, ":") && !strings.HasPrefix(op, ":="):
			continue // a query parameter or a header
		case strings.HasPrefix(op, ":=@"), strings.HasPrefix(op, "=@"):
			call.hasBody = true
			sep := op[:strings.IndexByte(op, '@')]
			if text, ok := readBody(dir, op[len(sep)+1:]); ok {
				call.bodies = append(call.bodies, item[:i]+sep+text)
			} else {
				call.unreadable = append(call.unreadable, item)
			}
		case strings.HasPrefix(op, "@"):
			call.hasBody = true // a form file upload
			call.unreadable = append(call.unreadable, item)
		default:
			call.hasBody = true
			call.bodies = append(call.bodies, item)
		}
	}
	if call.method == "" {
		call.method = "GET"
		if call.hasBody {
			call.method = "POST"
		}
	}
	if !call.hasBody && !ignoreStdin && call.method != "GET" && call.method != "HEAD" {
		call.hasBody = true
		call.unreadable = append(call.unreadable, "standard input (HTTPie sends it as the body)")
	}
	return call
}
