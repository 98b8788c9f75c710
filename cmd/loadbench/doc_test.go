package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteDoc: the run's tables replace the block between the markers of
// docs/performance.md and nothing else; a page without the markers is an
// error, not a silent no-op.
func TestWriteDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	before := "# Performance\n\nhand-written\n\n" + docBegin + "\nold table\n" + docEnd + "\n\n### Reading the run\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(path, "| new | table |\n"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	if strings.Contains(got, "old table") || !strings.Contains(got, docBegin+"\n| new | table |\n") {
		t.Errorf("the block was not replaced:\n%s", got)
	}
	if !strings.HasPrefix(got, "# Performance\n\nhand-written\n\n") || !strings.HasSuffix(got, docEnd+"\n\n### Reading the run\n") {
		t.Errorf("the text around the block changed:\n%s", got)
	}

	bare := filepath.Join(t.TempDir(), "plain.md")
	if err := os.WriteFile(bare, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(bare, "x"); err == nil {
		t.Error("a page without the markers was accepted")
	}
}

// TestPerformanceDocHasTheMarkers: make bench writes into
// docs/performance.md, so the page must keep one pair of markers.
func TestPerformanceDocHasTheMarkers(t *testing.T) {
	raw, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if strings.Count(s, docBegin) != 1 || strings.Count(s, docEnd) != 1 || strings.Index(s, docEnd) < strings.Index(s, docBegin) {
		t.Errorf("docs/performance.md needs exactly one %s … %s block", docBegin, docEnd)
	}
}
