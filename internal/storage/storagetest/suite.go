package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/storage"
)

// invalidPaths are paths every Store must refuse with storage.ErrInvalidPath.
var invalidPaths = []string{
	"", "../x", "/abs", "a//b", `a\b`, "a/../../b", "a/", "./a", "a/./b", "..", "a\x00b",
}

// Run runs the shared suite against stores made by newStore. newStore is
// called once per subtest and must return an empty store.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, newStore(t)) })
	t.Run("SeekAndRange", func(t *testing.T) { testSeekAndRange(t, newStore(t)) })
	t.Run("Exists", func(t *testing.T) { testExists(t, newStore(t)) })
	t.Run("Overwrite", func(t *testing.T) { testOverwrite(t, newStore(t)) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, newStore(t)) })
	t.Run("OpenMissing", func(t *testing.T) { testOpenMissing(t, newStore(t)) })
	t.Run("InvalidPaths", func(t *testing.T) { testInvalidPaths(t, newStore(t)) })
	t.Run("FailingReader", func(t *testing.T) { testFailingReader(t, newStore(t)) })
	t.Run("ShortReader", func(t *testing.T) { testShortReader(t, newStore(t)) })
	t.Run("CancelledContext", func(t *testing.T) { testCancelledContext(t, newStore(t)) })
	t.Run("List", func(t *testing.T) { testList(t, newStore(t)) })
}

func testRoundTrip(t *testing.T, s storage.Store) {
	cases := []struct {
		name, path string
		data       []byte
	}{
		{"empty", "c1/d1/license/empty.pdf", []byte{}},
		{"small", "c1/d1/license/front.jpg", []byte("hello, driver")},
		{"5MiB", "c1/d1/medical/scan.pdf", randomBytes(t, 5<<20)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			put(t, s, tc.path, tc.data)
			if got := readAll(t, s, tc.path); !bytes.Equal(got, tc.data) {
				t.Fatalf("read back %d bytes, want the %d bytes written", len(got), len(tc.data))
			}
			f := open(t, s, tc.path)
			end, err := f.Seek(0, io.SeekEnd)
			if err != nil {
				t.Fatalf("Seek end: %v", err)
			}
			if end != int64(len(tc.data)) {
				t.Fatalf("size from Seek end = %d, want %d", end, len(tc.data))
			}
		})
	}
}

func testSeekAndRange(t *testing.T, s storage.Store) {
	const path = "c1/d1/license/big.pdf"
	data := randomBytes(t, 1<<20)
	put(t, s, path, data)

	f := open(t, s, path)
	if _, err := f.Seek(1000, io.SeekStart); err != nil {
		t.Fatalf("Seek: %v", err)
	}
	buf := make([]byte, 500)
	if _, err := io.ReadFull(f, buf); err != nil {
		t.Fatalf("read after Seek: %v", err)
	}
	if !bytes.Equal(buf, data[1000:1500]) {
		t.Fatal("bytes after Seek(1000) differ")
	}
	// Reading on continues from where the last read stopped.
	if _, err := io.ReadFull(f, buf); err != nil {
		t.Fatalf("second read: %v", err)
	}
	if !bytes.Equal(buf, data[1500:2000]) {
		t.Fatal("bytes of the second read differ")
	}
	if _, err := f.Seek(-100, io.SeekEnd); err != nil {
		t.Fatalf("Seek from end: %v", err)
	}
	tail, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read tail: %v", err)
	}
	if !bytes.Equal(tail, data[len(data)-100:]) {
		t.Fatalf("tail differs (%d bytes)", len(tail))
	}
	// Seeking back after EOF works too.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatalf("Seek back to start: %v", err)
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		t.Fatalf("read after seeking back: %v", err)
	}
	if !bytes.Equal(buf, data[:500]) {
		t.Fatal("bytes after seeking back differ")
	}

	// The way handlers use it: an HTTP range request via http.ServeContent.
	rf := open(t, s, path)
	req := httptest.NewRequest(http.MethodGet, "/file", nil)
	req.Header.Set("Range", "bytes=100000-100999")
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/pdf")
	http.ServeContent(rec, req, "big.pdf", time.Time{}, rf)
	if rec.Code != http.StatusPartialContent {
		t.Fatalf("ServeContent status = %d, want 206", rec.Code)
	}
	if !bytes.Equal(rec.Body.Bytes(), data[100000:101000]) {
		t.Fatalf("ServeContent body differs (%d bytes)", rec.Body.Len())
	}
}

func testExists(t *testing.T, s storage.Store) {
	const path = "c1/d1/license/front.jpg"
	if exists(t, s, path) {
		t.Fatal("Exists = true before Put")
	}
	put(t, s, path, []byte("x"))
	if !exists(t, s, path) {
		t.Fatal("Exists = false after Put")
	}
	// A folder (key prefix) is not a file.
	if exists(t, s, "c1/d1") {
		t.Fatal("Exists = true for a prefix of a stored path")
	}
	if exists(t, s, "c1/d1/license/front.jp") {
		t.Fatal("Exists = true for a different path")
	}
}

func testOverwrite(t *testing.T, s storage.Store) {
	const path = "c1/d1/license/front.jpg"
	put(t, s, path, []byte("the first, longer version"))
	put(t, s, path, []byte("second"))
	if got := readAll(t, s, path); string(got) != "second" {
		t.Fatalf("after overwrite read %q, want %q", got, "second")
	}
}

func testDelete(t *testing.T, s storage.Store) {
	ctx := t.Context()
	const path = "c1/d1/license/front.jpg"
	put(t, s, path, []byte("x"))
	if err := s.Delete(ctx, path); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	assertNotExist(t, s, path)
	// Deleting again, or deleting what was never there, is fine.
	if err := s.Delete(ctx, path); err != nil {
		t.Fatalf("Delete of a deleted file: %v", err)
	}
	if err := s.Delete(ctx, "c9/never/was/here.pdf"); err != nil {
		t.Fatalf("Delete of a missing file: %v", err)
	}
}

func testList(t *testing.T, s storage.Store) {
	ctx := t.Context()
	for _, p := range []string{"c1/d1/license/a.pdf", "c1/d1/license/b.jpg", "c1/d1/license/old/c.pdf", "c1/d1/licenses.pdf", "c1/d2/license/x.pdf"} {
		put(t, s, p, []byte("x"))
	}
	got, err := s.List(ctx, "c1/d1/license")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	slices.Sort(got)
	if want := []string{"c1/d1/license/a.pdf", "c1/d1/license/b.jpg"}; !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q (the folder's own files only)", got, want)
	}
	if got, err := s.List(ctx, "c9/nothing"); err != nil || len(got) != 0 {
		t.Fatalf("List of a missing folder = %q, %v; want none", got, err)
	}
	if err := s.Delete(ctx, "c1/d1/license/a.pdf"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.List(ctx, "c1/d1/license"); !slices.Equal(got, []string{"c1/d1/license/b.jpg"}) {
		t.Fatalf("List after Delete = %q", got)
	}
	for _, p := range invalidPaths {
		if _, err := s.List(ctx, p); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("List(%q): error %v, want ErrInvalidPath", p, err)
		}
	}
}

func testOpenMissing(t *testing.T, s storage.Store) {
	put(t, s, "c1/d1/license/front.jpg", []byte("x"))
	assertNotExist(t, s, "c1/d1/license/back.jpg")
	assertNotExist(t, s, "c2/d1/license/front.jpg")
	assertNotExist(t, s, "c1/d1") // a prefix is not a file
}

func testInvalidPaths(t *testing.T, s storage.Store) {
	ctx := t.Context()
	for _, path := range invalidPaths {
		r := &untouchedReader{}
		if err := s.Put(ctx, path, r, 1, "text/plain"); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("Put(%q) error = %v, want ErrInvalidPath", path, err)
		}
		if r.read {
			t.Errorf("Put(%q) read the body of an invalid path", path)
		}
		if f, err := s.Open(ctx, path); !errors.Is(err, storage.ErrInvalidPath) {
			if f != nil {
				_ = f.Close()
			}
			t.Errorf("Open(%q) error = %v, want ErrInvalidPath", path, err)
		}
		if err := s.Delete(ctx, path); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("Delete(%q) error = %v, want ErrInvalidPath", path, err)
		}
		if _, err := s.Exists(ctx, path); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("Exists(%q) error = %v, want ErrInvalidPath", path, err)
		}
	}
	// Nothing landed where a lax implementation might have written.
	for _, path := range []string{"x", "abs", "a/b", "b", "a", "a/x", "ab"} {
		if exists(t, s, path) {
			t.Errorf("%q exists after Puts to invalid paths", path)
		}
	}
}

func testFailingReader(t *testing.T, s storage.Store) {
	ctx := t.Context()
	const size = 3 << 20
	data := randomBytes(t, size)
	errBoom := errors.New("reader broke")

	const path = "c1/d1/license/new.pdf"
	r := &failingReader{r: bytes.NewReader(data), failAfter: 1 << 20, err: errBoom}
	if err := s.Put(ctx, path, r, size, "application/pdf"); err == nil {
		t.Fatal("Put with a failing reader succeeded")
	}
	if exists(t, s, path) {
		t.Fatal("a failed Put left a file at a new path")
	}

	// A failed overwrite keeps the old file whole.
	const old = "c1/d1/license/old.pdf"
	put(t, s, old, []byte("old version"))
	r = &failingReader{r: bytes.NewReader(data), failAfter: 1 << 20, err: errBoom}
	if err := s.Put(ctx, old, r, size, "application/pdf"); err == nil {
		t.Fatal("overwriting Put with a failing reader succeeded")
	}
	if got := readAll(t, s, old); string(got) != "old version" {
		t.Fatalf("after a failed overwrite read %d bytes, want the old file", len(got))
	}
}

func testShortReader(t *testing.T, s storage.Store) {
	const path = "c1/d1/license/short.pdf"
	// MultiReader hides Seek: minio-go would retry a seekable body 10 times.
	err := s.Put(t.Context(), path, io.MultiReader(strings.NewReader("only 16 bytes..")), 1000, "application/pdf")
	if err == nil {
		t.Fatal("Put of a reader shorter than size succeeded")
	}
	if exists(t, s, path) {
		t.Fatal("a Put with a short reader left a file")
	}
}

func testCancelledContext(t *testing.T, s storage.Store) {
	const path = "c1/d1/license/front.jpg"
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Put(ctx, path, strings.NewReader("data"), 4, "text/plain")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled context: error = %v, want context.Canceled", err)
	}
	if exists(t, s, path) {
		t.Fatal("a Put with a cancelled context left a file")
	}
}

// put stores data at path or fails the test.
func put(t *testing.T, s storage.Store, path string, data []byte) {
	t.Helper()
	if err := s.Put(t.Context(), path, bytes.NewReader(data), int64(len(data)), "application/octet-stream"); err != nil {
		t.Fatalf("Put(%q): %v", path, err)
	}
}

// open opens path and closes it when the test ends.
func open(t *testing.T, s storage.Store, path string) storage.File {
	t.Helper()
	f, err := s.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func readAll(t *testing.T, s storage.Store, path string) []byte {
	t.Helper()
	f := open(t, s, path)
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read %q: %v", path, err)
	}
	return data
}

func exists(t *testing.T, s storage.Store, path string) bool {
	t.Helper()
	ok, err := s.Exists(t.Context(), path)
	if err != nil {
		t.Fatalf("Exists(%q): %v", path, err)
	}
	return ok
}

// assertNotExist checks that Open itself (not a later Read) reports a
// missing file, and that Exists agrees.
func assertNotExist(t *testing.T, s storage.Store, path string) {
	t.Helper()
	f, err := s.Open(t.Context(), path)
	if f != nil {
		_ = f.Close()
	}
	if !errors.Is(err, storage.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(%q) error = %v, want ErrNotExist", path, err)
	}
	if exists(t, s, path) {
		t.Fatalf("Exists(%q) = true for a missing file", path)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// failingReader returns err once failAfter bytes have been read, like an
// upload whose spool file breaks halfway.
type failingReader struct {
	r         io.Reader
	failAfter int
	read      int
	err       error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.read >= f.failAfter {
		return 0, f.err
	}
	p = p[:min(len(p), f.failAfter-f.read)]
	n, err := f.r.Read(p)
	f.read += n
	return n, err
}

// untouchedReader records whether anything read from it.
type untouchedReader struct{ read bool }

func (u *untouchedReader) Read(p []byte) (int, error) {
	u.read = true
	return 0, io.EOF
}
