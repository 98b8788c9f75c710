// Package storagetest holds the test suite every storage.Store must pass,
// and helpers that give other packages' tests a ready store.
package storagetest

import (
	"context"
	"log"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/konvoj/konvoj/internal/storage"
)

// Bucket is the bucket NewS3 creates in its fake S3 server.
const Bucket = "konvoj-test"

// NewLocal returns a local store in a fresh temporary directory that is
// removed when the test ends.
func NewLocal(t *testing.T) *storage.Local {
	t.Helper()
	s, err := storage.NewLocal(filepath.Join(t.TempDir(), "files"))
	if err != nil {
		t.Fatalf("storagetest: new local store: %v", err)
	}
	return s
}

// NewS3 starts an in-memory S3 server (gofakes3) for the test, with the
// bucket Bucket, and returns a store connected to it. The server is shut
// down when the test ends.
func NewS3(t *testing.T) *storage.S3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		t.Fatalf("storagetest: create bucket: %v", err)
	}
	srv := httptest.NewUnstartedServer(gofakes3.New(backend).Server())
	// When a client hangs up mid-download (as a Seek on an open file does),
	// gofakes3 tries to write an error status after the body has started;
	// keep net/http's complaint about that out of passing tests' output.
	srv.Config.ErrorLog = log.New(testWriter{t}, "fake s3: ", 0)
	srv.Start()
	t.Cleanup(srv.Close)

	s, err := storage.NewS3(context.Background(), S3Config(srv.URL))
	if err != nil {
		t.Fatalf("storagetest: new s3 store: %v", err)
	}
	return s
}

// S3Config returns the configuration NewS3 uses for a fake server at
// endpoint; gofakes3 accepts any credentials.
func S3Config(endpoint string) storage.S3Config {
	return storage.S3Config{
		Endpoint:        endpoint,
		Region:          "us-east-1",
		Bucket:          Bucket,
		AccessKeyID:     "test-access-key",
		SecretAccessKey: "test-secret-key",
		UsePathStyle:    true,
	}
}

// testWriter sends log output to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
