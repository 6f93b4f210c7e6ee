package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/guardlocks/guard/"

// floors numbers guard's packages from the ground up. A package may import only
// packages on a lower floor; the leaves in internal/ may also import each other.
// A package not listed here fails the test, so that a new one is given its floor.
var floors = map[string]int{
	"internal/atomicfile": 0, "internal/child": 0, "internal/cmdline": 0,
	"internal/execpath": 0, "internal/filelock": 0, "internal/gitrun": 0, "internal/lazyre": 0,
	"internal/wait": 0, "internal/webhook": 0, "internal/progress": 0,

	"lockcore": 1,
	"guard":    2,

	"backend": 3, "backend/etcd": 3, "classify": 3, "github": 3,

	"command": 4, "hooks": 4, "ci": 4, "install": 4, "publish": 4, "audit": 4,
	"agent": 4, "sandbox": 4, "history": 4, "watch": 4,

	"mcp": 5, "web": 5, "cmd/guard/exitcode": 5,

	"cmd/guard": 6,
}

// TestImportsRunDownTheFloors reads every non-test Go file of the module and checks
// its imports of guard's own packages against floors.
func TestImportsRunDownTheFloors(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok {
				imports[pkg][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < len(floors) {
		t.Fatalf("read %d packages under %s, fewer than the %d with a floor", len(imports), root, len(floors))
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		if exempt(pkg) {
			continue
		}
		floor, ok := floors[pkg]
		if !ok {
			t.Errorf("%s has no floor: add it to floors in %s and to DEVELOPERS.md", pkg, "internal/testing/layout/layout_test.go")
			continue
		}
		for dep := range imports[pkg] {
			if strings.HasPrefix(dep, "internal/testing/") {
				t.Errorf("%s imports the test-only package %s outside its tests", pkg, dep)
				continue
			}
			depFloor, ok := floors[dep]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which has no floor", pkg, dep)
			case floor == 0 && depFloor == 0:
				// a leaf may build on another leaf
			case depFloor >= floor:
				t.Errorf("%s (floor %d) imports %s (floor %d): an arrow running up or sideways", pkg, floor, dep, depFloor)
			}
		}
	}
}

// exempt is what stands outside the floors: test-only packages, the benchmark
// harness, and the release and Action packages that hold no guard code.
func exempt(pkg string) bool {
	return pkg == "." || strings.HasPrefix(pkg, "internal/testing/") || strings.HasPrefix(pkg, "bench") ||
		strings.HasPrefix(pkg, "packaging") || pkg == "action" || strings.HasPrefix(pkg, "testdata")
}
