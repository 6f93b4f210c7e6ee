package install

import "testing"

func TestTemporaryBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build3170422712/b001/exe/guard":                                                            true,
		"/var/folders/x/T/go-build123/b001/exe/guard":                                                       true,
		"/root/.cache/go-build/5a/5a740f35ac30a7ae7082ecd701744a4297a1216887762c65ec82194a87adfab0-d/guard": true,
		"/root/.cache/go-build/5a/zz740f35ac30a7ae7082ecd701744a4297a1216887762c65ec82194a87adfab0-d/guard": false,
		"/home/a/go/bin/guard":      false,
		"/usr/local/bin/guard":      false,
		"/tmp/go-build-cache/guard": false,
	} {
		if got := temporaryBuild(exe); got != want {
			t.Errorf("temporaryBuild(%q) = %v, want %v", exe, got, want)
		}
	}
}
