package storage_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
)

func TestS3(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return storagetest.NewS3(t) })
}

func TestS3Disk(t *testing.T) {
	if got := storagetest.NewS3(t).Disk(); got != "s3" {
		t.Fatalf("Disk() = %q, want s3", got)
	}
}

// startFakeS3 starts a gofakes3 server with the storagetest bucket and
// returns its URL.
func startFakeS3(t *testing.T) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(storagetest.Bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestNewS3Endpoints(t *testing.T) {
	url := startFakeS3(t)
	for name, endpoint := range map[string]string{
		"url":       url,
		"url slash": url + "/",
		"host:port": strings.TrimPrefix(url, "http://"),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := storage.NewS3(t.Context(), storagetest.S3Config(endpoint))
			if err != nil {
				t.Fatalf("NewS3(%q): %v", endpoint, err)
			}
			data := []byte("hello")
			if err := s.Put(t.Context(), "c1/f.txt", bytes.NewReader(data), 5, "text/plain"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewS3Errors(t *testing.T) {
	url := startFakeS3(t)

	missing := storagetest.S3Config(url)
	missing.Bucket = "no-such-bucket"
	_, err := storage.NewS3(t.Context(), missing)
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("missing bucket: error = %v, want a clear does-not-exist error", err)
	}

	for _, endpoint := range []string{"", "ftp://host", "http://user:hunter2@host", "http://host/prefix"} {
		cfg := storagetest.S3Config(endpoint)
		_, err := storage.NewS3(t.Context(), cfg)
		if err == nil {
			t.Errorf("NewS3(%q) succeeded", endpoint)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), cfg.SecretAccessKey) {
			t.Errorf("NewS3(%q) error leaks a secret: %v", endpoint, err)
		}
	}
}

// TestS3PutStreamsLargeFile checks that a 20 MiB upload from a plain reader
// (not an io.ReaderAt, so minio-go cannot read parts in place) goes out as
// one streamed PUT instead of minio-go's default of 16 MiB multipart parts,
// each first read into a 16 MiB buffer.
func TestS3PutStreamsLargeFile(t *testing.T) {
	const size = 20 << 20
	var puts, received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodHead: // BucketExists
		case r.Method == http.MethodPut && r.URL.RawQuery == "":
			puts.Add(1)
			n, _ := io.Copy(io.Discard, r.Body)
			received.Add(n)
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
		default:
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusNotImplemented)
		}
	}))
	t.Cleanup(srv.Close)
	s, err := storage.NewS3(t.Context(), storagetest.S3Config(srv.URL))
	if err != nil {
		t.Fatal(err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := s.Put(t.Context(), "c1/d1/big.pdf", io.LimitReader(patternReader{}, size), size, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)

	if puts.Load() != 1 {
		t.Fatalf("%d single PUT requests, want 1", puts.Load())
	}
	if received.Load() < size { // the body also carries chunk signatures
		t.Fatalf("server received %d bytes, want at least %d", received.Load(), size)
	}
	// Client and server together; a part buffer alone would be 16 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("Put of %d MiB allocated %d KiB, want it streamed", size>>20, alloc>>10)
	}
}

// patternReader is an endless, allocation-free stream of bytes.
type patternReader struct{}

func (patternReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i)
	}
	return len(p), nil
}
