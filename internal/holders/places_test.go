package holders_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// decision finds a call that decides who may reach what: the permission
// matrix asked directly, a record's owner checked, a role compared.
var decision = regexp.MustCompile(`\.Require\(|\.Grant\(|\.CheckCompany\(|\.CheckDriver\(|\bholders\.[A-Z]|\bauth\.Allowed\(|\.Role\s*(==|!=)\s*auth\.Role`)

// placesOfAccess are the files besides the areas' access files
// (internal/<area>/access*.go) that may hold such a call, with the reason.
var placesOfAccess = map[string]string{
	"web/pages/shows.go": "what a page shows (a link, a button, a menu entry) decides nothing: the services refuse",
	"web/server.go":      "the rate limiter gives a driver's token its own share of the company's budget: a budget, not access",
}

// TestAccessIsDecidedInTheAccessFiles: who may reach which record is
// decided in one place per area, its access file, on internal/holders and
// the permission matrix of internal/auth (docs/development.md, "Access").
// A handler, a page, a service or a store elsewhere that asks the matrix or
// checks an owner itself is a second way to do it.
func TestAccessIsDecidedInTheAccessFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"internal", "web", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			switch {
			case strings.HasPrefix(rel, "internal/auth/"), strings.HasPrefix(rel, "internal/holders/"):
				return nil // the matrix and the checks themselves
			case regexp.MustCompile(`^internal/[a-z]+/access[a-z_]*\.go$`).MatchString(rel):
				return nil
			case strings.Contains(rel, "/webtest/"), strings.Contains(rel, "/oidctest/"):
				return nil // test support
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(src), "\n") {
				if decision.MatchString(line) && placesOfAccess[rel] == "" {
					t.Errorf("%s:%d decides access outside an access file: %s", rel, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for f := range placesOfAccess {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s is listed as a place of access but does not exist", f)
		}
	}
}
