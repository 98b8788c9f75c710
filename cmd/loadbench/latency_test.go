package main

import (
	"math"
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/web/webtest"
)

// TestHistogramBound: a run's p99 is the smallest bucket bound holding 99 %
// of the requests recorded since the scrape before it.
func TestHistogramBound(t *testing.T) {
	inf := math.Inf(1)
	before := histogram{bounds: []float64{0.002, 0.005, 0.01, inf}, counts: []uint64{10, 10, 10, 10}}
	after := histogram{bounds: before.bounds, counts: []uint64{60, 108, 110, 110}}
	run := after.since(before)
	for _, c := range []struct {
		q    float64
		want float64
	}{{0.5, 0.002}, {0.98, 0.005}, {0.99, 0.01}, {1, 0.01}} {
		if got, ok := run.bound(c.q); !ok || got != c.want {
			t.Errorf("bound(%v) = %v, %v; want %v", c.q, got, ok, c.want)
		}
	}
	if got := serverP99(run); got != "≤ 10" {
		t.Errorf("serverP99 = %q, want ≤ 10", got)
	}
	slow := histogram{bounds: before.bounds, counts: []uint64{0, 0, 0, 5}}
	if got := serverP99(slow); got != "> 10" {
		t.Errorf("serverP99 of requests over the last bound = %q, want > 10", got)
	}
	if got := serverP99(after.since(after)); got != "" {
		t.Errorf("serverP99 of no request = %q, want empty", got)
	}
}

// TestScrapeLatencyCountsTheRun: two scrapes of a real server's /metrics
// around some requests count exactly those requests, not the scrapes.
func TestScrapeLatencyCountsTheRun(t *testing.T) {
	env := webtest.New(t)
	base := env.Server.URL
	get := func() {
		t.Helper()
		res, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	get()
	before, err := scrapeLatency(base)
	if err != nil {
		t.Fatal(err)
	}
	for range 7 {
		get()
	}
	after, err := scrapeLatency(base)
	if err != nil {
		t.Fatal(err)
	}
	run := after.since(before)
	if n := len(run.counts); n < 2 || !math.IsInf(run.bounds[n-1], 1) {
		t.Fatalf("bounds %v: want the server's buckets and +Inf", run.bounds)
	}
	if total := run.counts[len(run.counts)-1]; total != 7 {
		t.Errorf("%d requests recorded between the scrapes, want 7", total)
	}
	if s, ok := run.bound(0.99); !ok || math.IsInf(s, 1) {
		t.Errorf("p99 bound %v, %v: want a finite bucket for /healthz", s, ok)
	}
}
