package audit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/i18n"
)

// TestEveryRecordedActionIsListed reads the code of internal/, web/ and
// cmd/ and finds every action an audit row is written with: the Action of
// an audit.Entry, and the literals it takes through a variable or field
// named action. Each must be in audit.Actions, and each of those has words
// in English and Czech (audit.action.<action>), so the audit log never
// shows a code such as penalty.evidence_added (docs/audit.md).
func TestEveryRecordedActionIsListed(t *testing.T) {
	found := map[string]string{} // action → where
	fset := token.NewFileSet()
	for _, dir := range []string{"../../internal", "../../web", "../../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			writes := f.Name.Name == "audit"
			for _, im := range f.Imports {
				writes = writes || im.Path.Value == `"github.com/konvoj/konvoj/internal/audit"`
			}
			if !writes {
				return nil
			}
			literal := func(e ast.Expr) {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					found[s] = fset.Position(lit.Pos()).String()
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					entry := false
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Entry" {
						entry = true
					}
					for _, el := range n.Elts {
						kv, ok := el.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						key, _ := kv.Key.(*ast.Ident)
						switch {
						case key != nil && key.Name == "action":
							literal(kv.Value)
						case entry && key != nil && key.Name == "Action":
							switch v := kv.Value.(type) {
							case *ast.BasicLit:
								literal(v)
							case *ast.Ident, *ast.SelectorExpr: // a variable or field named action, found below
							default:
								t.Errorf("%s: write the audit action as a literal, so this test can read it", fset.Position(v.Pos()))
							}
						}
					}
				case *ast.AssignStmt:
					for i, lhs := range n.Lhs {
						if id, ok := lhs.(*ast.Ident); ok && id.Name == "action" && i < len(n.Rhs) {
							literal(n.Rhs[i])
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The reading finds what the services are known to write, through each
	// way the code names it.
	for _, want := range []string{"created", "penalty.evidence_added", "penalty.disputed", "document.review_rejected", "deactivated", "import.completed"} {
		if _, ok := found[want]; !ok {
			t.Errorf("the code's reading missed %q", want)
		}
	}
	for a, where := range found {
		if !slices.Contains(audit.Actions, a) {
			t.Errorf("%s: the action %q is recorded but not in audit.Actions", where, a)
		}
	}
	for _, a := range audit.Actions {
		for _, l := range i18n.Complete {
			if !l.Has("audit.action." + a) {
				t.Errorf("%s: no words for the action %s (audit.action.%s)", l, a, a)
			}
		}
	}
}
