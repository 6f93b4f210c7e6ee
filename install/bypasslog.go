package install

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// readBypassLog returns the log's lines (JSON objects); a missing log has none.
func readBypassLog(path string) ([]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			return out, fmt.Errorf("%s:%d: not a JSON object", path, n)
		}
		out = append(out, json.RawMessage(line))
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// bypassSummary is the part of a bypass log entry the text report shows.
type bypassSummary struct {
	Time     string   `json:"time"`
	Owner    string   `json:"owner"`
	Hook     string   `json:"hook"`
	Reason   string   `json:"reason"`
	Refs     []string `json:"refs"`
	Blocking []struct {
		Path string `json:"path"`
		Lock string `json:"lock"`
	} `json:"blocking"`
	Error string `json:"error"`
}
