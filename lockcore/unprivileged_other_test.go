//go:build !unix

package lockcore_test

import "testing"

func mkfifo(t *testing.T, path string) { t.Skip("no FIFOs here") }

func scanAsNobody(t *testing.T, root string) (locks, unreadable []string) {
	t.Skip("no unprivileged user to run as here")
	return nil, nil
}
