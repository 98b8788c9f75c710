package storage_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
)

func TestLocal(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s := storagetest.NewLocal(t)
		// Whatever a subtest did, no temp files may be left behind.
		t.Cleanup(func() { assertNoTempFiles(t, s.Root()) })
		return s
	})
}

func TestLocalDisk(t *testing.T) {
	if got := storagetest.NewLocal(t).Disk(); got != "local" {
		t.Fatalf("Disk() = %q, want local", got)
	}
}

func TestNewLocalCreatesRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "b")
	s, err := storage.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		t.Fatalf("root not created: %v", err)
	}
	if s.Root() != root {
		t.Fatalf("Root() = %q, want %q", s.Root(), root)
	}
}

func TestLocalPermissions(t *testing.T) {
	s := storagetest.NewLocal(t)
	data := []byte("%PDF-1.7")
	if err := s.Put(t.Context(), "c1/d1/license/front.pdf", bytes.NewReader(data), int64(len(data)), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(s.Root(), "c1", "d1", "license", "front.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o640 {
		t.Errorf("file mode = %o, want 640", perm)
	}
	for _, dir := range []string{"c1", "c1/d1", "c1/d1/license"} {
		info, err := os.Stat(filepath.Join(s.Root(), dir))
		if err != nil {
			t.Fatal(err)
		}
		// The umask may take bits away, never add them.
		if perm := info.Mode().Perm(); perm&^0o750 != 0 {
			t.Errorf("dir %s mode = %o, want at most 750", dir, perm)
		}
	}
}

// TestLocalInvalidPathsWriteNothing checks on disk that refused paths leave
// no trace inside the root or next to it.
func TestLocalInvalidPathsWriteNothing(t *testing.T) {
	parent := t.TempDir()
	s, err := storage.NewLocal(filepath.Join(parent, "files"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"../x", "/abs", "a//b", `a\b`, "", "a/../../b", "a/../b"} {
		err := s.Put(t.Context(), path, strings.NewReader("x"), 1, "text/plain")
		if !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("Put(%q) error = %v, want ErrInvalidPath", path, err)
		}
	}
	var found []string
	err = filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != parent && p != s.Root() {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Fatalf("invalid paths wrote %v", found)
	}
}

func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestLocalListLeavesOutPutsInProgress: a half-written object (a Put's
// temporary file, or one a crash left behind) is not a stored file.
func TestLocalListLeavesOutPutsInProgress(t *testing.T) {
	s := storagetest.NewLocal(t)
	if err := s.Put(t.Context(), "c1/d1/a.pdf", strings.NewReader("x"), 1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Root(), "c1", "d1", ".put-123.tmp"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.List(t.Context(), "c1/d1")
	if err != nil || len(got) != 1 || got[0] != "c1/d1/a.pdf" {
		t.Fatalf("List = %q, %v; want only c1/d1/a.pdf", got, err)
	}
}
