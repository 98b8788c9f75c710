package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every table of the pages is marked table-stack, so that on a phone it
// becomes cards instead of scrolling sideways (docs/web-app.md, "Tables on
// a phone").
func TestEveryTableStacksOnAPhone(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templ files: %v", err)
	}
	table := regexp.MustCompile(`<table\b[^>]*>`)
	marked := regexp.MustCompile(`\bclass="[^"]*\btable-stack\b`)
	tables := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range table.FindAllIndex(b, -1) {
			tables++
			if tag := string(b[loc[0]:loc[1]]); !marked.MatchString(tag) {
				t.Errorf("%s:%d: %s is not marked table-stack", f, strings.Count(string(b[:loc[0]]), "\n")+1, tag)
			}
		}
	}
	if tables < 10 {
		t.Errorf("only %d tables found", tables)
	}
}
