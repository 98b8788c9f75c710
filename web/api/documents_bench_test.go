package api_test

import (
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// uploadBodyFile writes a multipart upload body holding a size-byte PDF to
// a file, so that sending it costs the client no memory either.
func uploadBodyFile(tb testing.TB, size int) (path, contentType string) {
	tb.Helper()
	path = filepath.Join(tb.TempDir(), "body")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := multipart.NewWriter(f)
	_ = w.WriteField("valid_until", "2030-12-31")
	pw, err := w.CreateFormFile("file", "scan.pdf")
	if err != nil {
		tb.Fatal(err)
	}
	chunk := samplePDF(tb, 1<<20)
	for written := 0; written < size; written += len(chunk) {
		if _, err := pw.Write(chunk[:min(len(chunk), size-written)]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, w.FormDataContentType()
}

// postFile sends the body file to the upload endpoint with a plain client
// (no contract check: the benchmark measures the server).
func postFile(tb testing.TB, env *webtest.Env, caller *webtest.Caller, docID uuid.UUID, path, contentType string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/v0/documents/"+docID.String()+"/files", f)
	req.ContentLength = info.Size()
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+caller.Token)
	res, err := env.Server.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		tb.Fatalf("upload: %d %s", res.StatusCode, body)
	}
}

// memoryOfUpload measures one upload through the real HTTP server: the
// bytes allocated by the whole process meanwhile, and the highest heap in
// use above where it started (sampled every millisecond).
func memoryOfUpload(tb testing.TB, upload func()) (allocated, peakHeap uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := before.HeapInuse
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	})
	upload()
	close(stop)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak = max(peak, after.HeapInuse)
	return after.TotalAlloc - before.TotalAlloc, peak - before.HeapInuse
}

// BenchmarkDocumentUpload uploads 1 MiB and 20 MiB PDFs through the HTTP
// server onto local storage: MB/s from SetBytes, allocations per upload
// from -benchmem, and for one extra upload the process's allocated bytes
// and peak heap growth (alloc-B, peak-heap-B).
//
//	go test -run '^$' -bench DocumentUpload -benchmem ./web/api
func BenchmarkDocumentUpload(b *testing.B) {
	for _, size := range []int{1 << 20, 20 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			env := webtest.New(b)
			company := env.Company("Acme", "free")
			hr := env.As(company, auth.RoleHRManager)
			driver := env.Driver(company)
			docID := documentID(b, env, driver, "passport")
			path, contentType := uploadBodyFile(b, size)
			postFile(b, env, hr, docID, path, contentType) // warm up: user row, pools

			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				postFile(b, env, hr, docID, path, contentType)
			}
			b.StopTimer()
			allocated, peak := memoryOfUpload(b, func() { postFile(b, env, hr, docID, path, contentType) })
			b.ReportMetric(float64(allocated), "alloc-B")
			b.ReportMetric(float64(peak), "peak-heap-B")
		})
	}
}

// TestDocumentUploadStreams holds the streaming promise: a 20 MiB upload
// through the real server allocates a small fraction of its size (a server
// that buffered the file, or parsed the form into memory, would allocate
// at least 20 MiB). It runs alone (not parallel) so that only it allocates.
func TestDocumentUploadStreams(t *testing.T) {
	const size = 20 << 20
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")
	path, contentType := uploadBodyFile(t, size)
	postFile(t, env, hr, docID, path, contentType)

	allocated, peak := memoryOfUpload(t, func() { postFile(t, env, hr, docID, path, contentType) })
	t.Logf("20 MiB upload: %d KiB allocated, heap peak +%d KiB", allocated>>10, peak>>10)
	if allocated > 4<<20 {
		t.Errorf("a 20 MiB upload allocated %d KiB: the file is being buffered", allocated>>10)
	}
	if n := count(t, env, `SELECT count(*) FROM document_files WHERE document_id = $1 AND size_bytes = $2`, docID, size); n != 2 {
		t.Errorf("%d stored 20 MiB versions, want 2", n)
	}
}
