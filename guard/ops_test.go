package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckOpNameRefusesNearMissesOnly(t *testing.T) {
	for _, op := range append(append([]string{}, KnownOps...), "Edit", "deploy", "merge", "pull", "release", "test", "exit2") {
		assert.NoError(t, CheckOpName(op), op)
	}
	for op, meant := range map[string]string{
		"registry-uplaod": OpRegistryUpload, "registry-upload2": OpRegistryUpload, "regisry-uplad": OpRegistryUpload,
		"comit": OpCommit, "commti": OpCommit, "psuh": OpPush, "pushh": OpPush, "edti": OpEdit,
		"release_tag": OpReleaseTag, "publish-relase": OpPublishRelease, "visibility-publc": OpVisibilityPublic,
	} {
		err := CheckOpName(op)
		require.Error(t, err, op)
		assert.Equal(t, BadInput, OutcomeOf(err), op)
		assert.Contains(t, err.Error(), `did you mean "`+meant+`"`, op)
	}
	assert.Equal(t, BadInput, OutcomeOf(CheckOpName(" ")))
}

func FuzzCheckOpName(f *testing.F) {
	for _, s := range []string{"edit", "registry-uplaod", "", "ü", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, op string) {
		err := CheckOpName(op)
		for _, k := range KnownOps {
			if strings.EqualFold(op, k) {
				assert.NoError(t, err)
			}
		}
		if err != nil {
			assert.Equal(t, BadInput, OutcomeOf(err))
		}
	})
}

// TestOnlyTheSubjectResolverReadsConfiguration keeps the rule of issue 10: outside
// guard/, no code reads .guard.toml or resolves an identity itself; it asks
// ResolveSubject, so that every command answers for a path the same way.
func TestOnlyTheSubjectResolverReadsConfiguration(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	banned := map[string]bool{"FindConfig": true, "ResolveIdentity": true, "LoadConfig": true}
	var found []string
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == "testdata" || p == filepath.Join(root, "guard")) {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "guard" && banned[sel.Sel.Name] {
					rel, _ := filepath.Rel(root, p)
					found = append(found, rel+": guard."+sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "use guard.ResolveSubject (guard/subject.go) instead")
}
