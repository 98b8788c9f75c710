package storage

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepTemp: stale temporary files matching the pattern go, fresh ones
// and other files stay, in subfolders too.
func TestSweepTemp(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "company", "driver")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	files := map[string]bool{ // path → should survive
		filepath.Join(sub, ".put-123.tmp"):   false,
		filepath.Join(root, ".put-9.tmp"):    false,
		filepath.Join(sub, ".put-456.tmp"):   true, // fresh: an upload in progress
		filepath.Join(sub, "stored.pdf"):     true, // old, but not a temporary file
		filepath.Join(root, "notes.put.tmp"): true,
	}
	for p, keep := range files {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if !keep || filepath.Base(p) == "stored.pdf" || filepath.Base(p) == "notes.put.tmp" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := SweepTemp(root, TempPattern, StaleAge, true)
	if err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want 2", n, err)
	}
	for p, keep := range files {
		if _, err := os.Stat(p); (err == nil) != keep {
			t.Errorf("%s: exists %v, want %v", p, err == nil, keep)
		}
	}
	// Not recursive: only the folder's own files.
	old2 := filepath.Join(sub, ".put-7.tmp")
	_ = os.WriteFile(old2, []byte("x"), 0o600)
	_ = os.Chtimes(old2, old, old)
	if n, _ := SweepTemp(root, TempPattern, StaleAge, false); n != 0 {
		t.Errorf("non-recursive sweep removed %d from subfolders", n)
	}
	if n, err := SweepTemp(filepath.Join(root, "missing"), "*", StaleAge, true); n != 0 || err != nil {
		t.Errorf("missing dir: %d %v", n, err)
	}
}
