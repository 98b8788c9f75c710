package main

import (
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// latencyMetric is the server's own histogram of request durations
// (web/metrics.go): from its metrics middleware's start to the handler's
// return, so without reading the request off the socket, waiting for a
// processor before that, or the client's side.
const latencyMetric = "konvoj_http_request_duration_seconds"

// histogram is a cumulative histogram: counts[i] requests took at most
// bounds[i] seconds; the last bound is +Inf.
type histogram struct {
	bounds []float64
	counts []uint64
}

// scrapeLatency reads the server's latency histogram from its /metrics,
// summed over every route but /metrics itself (each endpoint runs alone,
// so the difference of two scrapes around a run is that run's requests).
func scrapeLatency(base string) (histogram, error) {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		return histogram{}, fmt.Errorf("scrape %s/metrics: %w", base, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return histogram{}, fmt.Errorf("scrape %s/metrics: %s", base, res.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		return histogram{}, fmt.Errorf("parse %s/metrics: %w", base, err)
	}
	h := histogram{}
	family, ok := families[latencyMetric]
	if !ok {
		return h, nil // no request recorded yet
	}
	for _, m := range family.GetMetric() {
		route := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" {
				route = l.GetValue()
			}
		}
		if route == "/metrics" {
			continue
		}
		buckets := m.GetHistogram().GetBucket()
		if h.bounds == nil {
			for _, b := range buckets {
				h.bounds = append(h.bounds, b.GetUpperBound())
			}
			h.bounds = append(h.bounds, math.Inf(1))
			h.counts = make([]uint64, len(h.bounds))
		}
		if len(buckets)+1 != len(h.bounds) {
			return histogram{}, fmt.Errorf("%s: series with %d buckets beside %d", latencyMetric, len(buckets), len(h.bounds)-1)
		}
		for i, b := range buckets {
			h.counts[i] += b.GetCumulativeCount()
		}
		h.counts[len(buckets)] += m.GetHistogram().GetSampleCount()
	}
	return h, nil
}

// since is the requests recorded in h and not yet in before.
func (h histogram) since(before histogram) histogram {
	if before.bounds == nil {
		return h
	}
	d := histogram{bounds: h.bounds, counts: slices.Clone(h.counts)}
	for i := range d.counts {
		d.counts[i] -= before.counts[i]
	}
	return d
}

// bound is the smallest bucket bound, in seconds, at or under which a share
// q of the requests finished (the histogram's resolution: a p99 of 7 ms
// reads "at most 10 ms"); ok is false without requests.
func (h histogram) bound(q float64) (seconds float64, ok bool) {
	if len(h.counts) == 0 || h.counts[len(h.counts)-1] == 0 {
		return 0, false
	}
	want := q * float64(h.counts[len(h.counts)-1])
	for i, c := range h.counts {
		if float64(c) >= want {
			return h.bounds[i], true
		}
	}
	return math.Inf(1), true
}

// serverP99 is the column's text for a run's histogram: "≤ 25" (ms).
func serverP99(h histogram) string {
	s, ok := h.bound(0.99)
	switch {
	case !ok:
		return ""
	case math.IsInf(s, 1):
		return fmt.Sprintf("> %g", h.bounds[len(h.bounds)-2]*1000)
	}
	return fmt.Sprintf("≤ %g", s*1000)
}
