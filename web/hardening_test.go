package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/config"
)

// syncBuffer is a log sink the server's goroutines may write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientDisconnectIs499: a request whose client goes away is logged
// with status 499 at info level, not as a 500 error.
func TestClientDisconnectIs499(t *testing.T) {
	var logs syncBuffer
	s := NewServer(Options{Config: config.Config{PublicURL: "http://localhost:8080"},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}, nil, nil)
	started, finished := make(chan struct{}), make(chan struct{})
	s.Echo.GET("/slow", func(c echo.Context) error {
		defer close(finished)
		close(started)
		<-c.Request().Context().Done()
		return c.Request().Context().Err()
	})
	srv := httptest.NewServer(s.Echo)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/slow", nil)
	go func() { <-started; cancel() }()
	if _, err := srv.Client().Do(req); err == nil {
		t.Fatal("the request was not cancelled")
	}
	<-finished
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), `"route":"/slow"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	out := logs.String()
	if !strings.Contains(out, `"status":499`) || strings.Contains(out, `"level":"ERROR"`) {
		t.Fatalf("log lines: %s", out)
	}
}

// TestSecurityHeadersAndMetricsAddr: Permissions-Policy on every answer,
// HSTS only with an https PUBLIC_URL; with METRICS_ADDR set, /metrics is
// not served on the main listener but on MetricsHandler.
func TestSecurityHeadersAndMetricsAddr(t *testing.T) {
	get := func(h http.Handler, path string) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Result()
	}
	plain := NewServer(Options{Config: config.Config{PublicURL: "http://localhost:8080"}}, nil, nil)
	res := get(plain.Echo, "/healthz")
	if res.Header.Get("Permissions-Policy") == "" || res.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("http PUBLIC_URL headers: %v", res.Header)
	}
	if res := get(plain.Echo, "/metrics"); res.StatusCode != http.StatusOK {
		t.Errorf("/metrics without METRICS_ADDR: %d", res.StatusCode)
	}
	secure := NewServer(Options{Config: config.Config{PublicURL: "https://konvoj.example", MetricsAddr: "127.0.0.1:0"}}, nil, nil)
	res = get(secure.Echo, "/healthz")
	if !strings.HasPrefix(res.Header.Get("Strict-Transport-Security"), "max-age=") || res.Header.Get("Permissions-Policy") == "" {
		t.Errorf("https PUBLIC_URL headers: %v", res.Header)
	}
	if res := get(secure.Echo, "/metrics"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the main listener with METRICS_ADDR: %d", res.StatusCode)
	}
	if res := get(secure.MetricsHandler(), "/metrics"); res.StatusCode != http.StatusOK {
		t.Errorf("/metrics on the metrics listener: %d", res.StatusCode)
	}
}
