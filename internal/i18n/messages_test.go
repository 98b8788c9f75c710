package i18n_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/i18n"
)

// keyArg is where the message key sits among a constructor's arguments;
// the name/value pairs follow it.
var keyArg = map[string]int{
	"NotFound": 0, "Forbiddenf": 0, "Conflict": 0, "Duplicate": 0, "BadRequest": 0, "Unauthorized": 0,
	"PayloadTooLarge": 0, "UnsupportedMediaType": 0, "Invalid": 1, "New": 1, "Wrap": 2,
}

// fieldPrefix is the catalogue prefix a package's fieldName("x") helper
// builds ("field.finance.x").
var fieldPrefix = map[string]string{"finance": "field.finance.", "documents": "field.document."}

// Every service message is a catalogue key: the code under internal/, web/
// and cmd/ is read, and each apperr constructor, Validation.Add and the
// API's query.fail must get a literal "msg." key (a wrapper may pass on its
// parameter named key with its args..., as query.fail does) that exists in English
// (and so, by TestCataloguesComplete, in the other languages), with
// exactly the arguments its text names. No code builds an apperr.Error by
// hand. Every "msg." key of the catalogues is used somewhere.
func TestServiceMessagesAreKeys(t *testing.T) {
	placeholder := regexp.MustCompile(`\{([a-z_]+)\}`)
	used := map[string]bool{}
	calls := 0
	check := func(fset *token.FileSet, pkg string, call *ast.CallExpr, idx int) {
		pos := fset.Position(call.Pos())
		if len(call.Args) <= idx {
			t.Errorf("%s: call without a message key", pos)
			return
		}
		lit, ok := call.Args[idx].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			if id, ok := call.Args[idx].(*ast.Ident); ok && id.Name == "key" && call.Ellipsis.IsValid() {
				return // a wrapper passing its own key on; its callers are checked
			}
			t.Errorf("%s: the message key must be a literal catalogue key, not %s", pos, types(call.Args[idx]))
			return
		}
		key, _ := strconv.Unquote(lit.Value)
		calls++
		if !strings.HasPrefix(key, "msg.") || !i18n.EN.Has(key) {
			t.Errorf("%s: %q is not a message key of the catalogues", pos, key)
			return
		}
		pairs := call.Args[idx+1:]
		if len(pairs)%2 != 0 {
			t.Errorf("%s: %s: arguments must be name/value pairs", pos, key)
			return
		}
		var given []string
		for i := 0; i < len(pairs); i += 2 {
			name, ok := pairs[i].(*ast.BasicLit)
			if !ok || name.Kind != token.STRING {
				t.Errorf("%s: %s: argument names must be literal", pos, key)
				return
			}
			s, _ := strconv.Unquote(name.Value)
			given = append(given, s)
		}
		var want []string
		for _, m := range placeholder.FindAllStringSubmatch(i18n.EN.T(key), -1) {
			want = append(want, m[1])
		}
		sort.Strings(given)
		sort.Strings(want)
		if strings.Join(given, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %s: arguments %v, the text names %v", pos, key, given, want)
		}
	}

	for _, root := range []string{"../../internal", "../../web", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			pkg := f.Name.Name
			validations := validationNames(f, pkg)
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.HasPrefix(s, "msg.") {
						used[s] = true
					}
				case *ast.CompositeLit:
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && isIdent(sel.X, "apperr") && sel.Sel.Name == "Error" {
						t.Errorf("%s: build errors with the apperr constructors, not apperr.Error{...}", fset.Position(n.Pos()))
					}
				case *ast.CallExpr:
					switch fn := n.Fun.(type) {
					case *ast.SelectorExpr:
						switch {
						case isIdent(fn.X, "apperr") && keyArg[fn.Sel.Name] > 0 || isIdent(fn.X, "apperr") && hasKey(fn.Sel.Name):
							check(fset, pkg, n, keyArg[fn.Sel.Name])
						case fn.Sel.Name == "Add" && validations[rootIdent(fn.X)]:
							check(fset, pkg, n, 1)
						case fn.Sel.Name == "fail" && pkg == "api":
							check(fset, pkg, n, 0)
						}
					case *ast.Ident:
						if pkg == "apperr" && hasKey(fn.Name) {
							check(fset, pkg, n, keyArg[fn.Name])
						}
						if prefix, ok := fieldPrefix[pkg]; ok && fn.Name == "fieldName" && len(n.Args) == 1 {
							if lit, ok := n.Args[0].(*ast.BasicLit); ok {
								name, _ := strconv.Unquote(lit.Value)
								if !i18n.EN.Has(prefix + name) {
									t.Errorf("%s: no field name %q in the catalogues", fset.Position(n.Pos()), prefix+name)
								}
							}
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
	if calls < 180 {
		t.Fatalf("only %d message calls found: the walk no longer sees the code", calls)
	}
	for _, k := range i18n.Keys(i18n.EN) {
		if strings.HasPrefix(k, "msg.") && !used[k] {
			t.Errorf("message key %q is in the catalogues but no code uses it", k)
		}
	}
}

func hasKey(name string) bool { _, ok := keyArg[name]; return ok }

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// rootIdent is the variable a method is called on ("v" of v.Add, "in" of
// in.v.Add is not used here).
func rootIdent(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.UnaryExpr:
		return rootIdent(e.X)
	case *ast.ParenExpr:
		return rootIdent(e.X)
	}
	return ""
}

// validationNames are the names a file declares with the type
// apperr.Validation or *apperr.Validation (variables and parameters).
func validationNames(f *ast.File, pkg string) map[string]bool {
	isValidation := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		if sel, ok := e.(*ast.SelectorExpr); ok {
			return isIdent(sel.X, "apperr") && sel.Sel.Name == "Validation"
		}
		return pkg == "apperr" && isIdent(e, "Validation")
	}
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if n.Type != nil && isValidation(n.Type) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
		case *ast.Field:
			if isValidation(n.Type) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
		}
		return true
	})
	return names
}

func types(e ast.Expr) string {
	switch e.(type) {
	case *ast.CallExpr:
		return "a call"
	case *ast.BinaryExpr:
		return "a built string"
	case *ast.Ident, *ast.SelectorExpr:
		return "a variable"
	}
	return "an expression"
}
