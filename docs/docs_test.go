// Package docs holds the project's documentation (Markdown); this test keeps
// the repository pointing at it.
package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trackedFiles lists the repository's tracked files, relative to its root.
func trackedFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v (the test reads the tracked files through git)", err)
	}
	root = strings.TrimSpace(string(out))
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return root, files
}

// The rules live in docs/: nothing in the repository may point at notes
// outside it, which API users and operators cannot read.
func TestNoReferencesOutsideTheRepository(t *testing.T) {
	root, files := trackedFiles(t)
	// Spelled in pieces so this file does not match itself.
	banned := []string{"DECI" + "SIONS", "../" + "shared"}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree, not yet committed
			}
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, s := range banned {
				if strings.Contains(line, s) {
					t.Errorf("%s:%d mentions %q; point to the docs/ page of the rule instead", f, i+1, s)
				}
			}
		}
	}
}

// Every docs/<page>.md named anywhere, and every relative link between the
// pages, names a page that exists.
func TestDocsReferencesExist(t *testing.T) {
	root, files := trackedFiles(t)
	named := regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)`)
	linked := regexp.MustCompile(`\]\(([A-Za-z0-9_./-]+\.md)(#[^)]*)?\)`)
	for _, f := range files {
		if strings.HasPrefix(f, "node_modules/") || strings.HasSuffix(f, ".sum") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(root, "docs", m[1])); err != nil {
				t.Errorf("%s names docs/%s, which does not exist", f, m[1])
			}
		}
		if strings.HasSuffix(f, ".md") {
			for _, m := range linked.FindAllStringSubmatch(text, -1) {
				if strings.Contains(m[1], "://") {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(f), m[1])); err != nil {
					t.Errorf("%s links to %s, which does not exist", f, m[1])
				}
			}
		}
	}
}
