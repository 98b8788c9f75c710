package web

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"sync"
	"time"
)

// Deadlines are the server's timeouts (docs/security.md): headers must
// arrive within Header; a request body must keep arriving at MinRate bytes
// per second or more once Grace has passed; a whole request may take
// Upload (multipart bodies) or Whole (everything else); an idle
// connection is closed after Idle.
type Deadlines struct {
	Header, Grace, Whole, Upload, Idle time.Duration
	MinRate                            int64
}

// DefaultDeadlines are the production values.
var DefaultDeadlines = Deadlines{Header: 10 * time.Second, Grace: 10 * time.Second, Whole: 60 * time.Second,
	Upload: 15 * time.Minute, Idle: 120 * time.Second, MinRate: 1024}

// Longest is the longest any request may take: Whole or Upload. The
// idempotency middleware holds a request under a key to it, and takes a
// key over only after it (web/idempotency.go).
func (d Deadlines) Longest() time.Duration { return max(d.Whole, d.Upload) }

// HTTPServer is the http.Server for h on addr with the deadlines: header and
// idle timeouts on the server, the body and whole-request deadlines per
// request (net/http's ResponseController moves the connection's read
// deadline as the body arrives).
func HTTPServer(addr string, h http.Handler, d Deadlines) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           d.Handler(h),
		ReadHeaderTimeout: d.Header,
		IdleTimeout:       d.Idle,
	}
}

// Handler applies the per-request deadlines to h.
func (d Deadlines) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		whole := start.Add(d.Whole)
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			whole = start.Add(d.Upload)
		}
		rc := http.NewResponseController(w)
		if r.Body == nil || r.Body == http.NoBody {
			// Nothing to read: only the whole-request bound (net/http's
			// background read notices a client that goes away).
			_ = rc.SetReadDeadline(whole)
			h.ServeHTTP(w, r)
			return
		}
		b := &paced{body: r.Body, rc: rc, w: w, start: start, whole: whole, d: d}
		b.move()
		r.Body = b
		h.ServeHTTP(w, r)
	})
}

// paced is a request body whose connection read deadline moves forward as
// bytes arrive: Grace after the start plus one second per MinRate bytes
// received, never past the whole-request bound. A body that falls behind
// the rate hits the deadline and the connection is closed.
type paced struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	w     http.ResponseWriter
	start time.Time
	whole time.Time
	d     Deadlines
	mu    sync.Mutex
	n     int64
	done  bool
}

func (b *paced) move() {
	at := b.whole
	if !b.done {
		at = b.start.Add(b.d.Grace + time.Duration(float64(b.n)/float64(b.d.MinRate)*float64(time.Second)))
		if at.After(b.whole) {
			at = b.whole
		}
	}
	_ = b.rc.SetReadDeadline(at)
}

func (b *paced) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		// The whole body is in: from now on only the whole-request bound.
		b.done = true
		b.move()
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Too slow: the answer (if any) ends the connection.
		b.w.Header().Set("Connection", "close")
	case err == nil:
		b.move()
	}
	return n, err
}

func (b *paced) Close() error { return b.body.Close() }
