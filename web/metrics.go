package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/konvoj/konvoj/internal/live"
)

// metrics holds the Prometheus registry of one server (one per server, so
// tests can run several servers in a process).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec

	// The live-update streams (docs/live-updates.md).
	streams               prometheus.Gauge
	sent, replays, resets prometheus.Counter
}

func newMetrics(db *pgxpool.Pool, limiter any, hub *live.Hub) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "konvoj_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "konvoj_http_request_duration_seconds", Help: "HTTP request latency by route, method and status.",
			Buckets: []float64{.002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "status"}),
	}
	m.streams = prometheus.NewGauge(prometheus.GaugeOpts{Name: "konvoj_live_streams", Help: "Live-update streams open on this instance."})
	m.sent = prometheus.NewCounter(prometheus.CounterOpts{Name: "konvoj_live_events_sent_total", Help: "Live-update events sent to streams (replayed ones included)."})
	m.replays = prometheus.NewCounter(prometheus.CounterOpts{Name: "konvoj_live_replays_total", Help: "Live-update streams that resumed from a Last-Event-ID."})
	m.resets = prometheus.NewCounter(prometheus.CounterOpts{Name: "konvoj_live_resets_total", Help: "Resumes told to reload (event: reset): what they missed is past the replay window."})
	m.reg.MustRegister(m.streams, m.sent, m.replays, m.resets)
	if hub != nil {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "konvoj_live_dropped_total", Help: "Live-update streams dropped because their client did not read.",
		}, func() float64 { return float64(hub.Dropped.Load()) }))
	}
	m.reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if db != nil {
		m.reg.MustRegister(poolCollector{db})
	}
	if d, ok := limiter.(degradable); ok {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "konvoj_ratelimit_fallbacks_total",
			Help: "Rate-limit tokens taken from the instance's memory because the shared store (Redis) failed.",
		}, func() float64 { return float64(d.Fallbacks()) }))
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// middleware records every request by its route pattern (never the raw
// path, which would explode the label set with ids).
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		status := strconv.Itoa(loggedStatus(c))
		m.requests.WithLabelValues(route, c.Request().Method, status).Inc()
		m.latency.WithLabelValues(route, c.Request().Method, status).Observe(time.Since(start).Seconds())
		return nil
	}
}

var (
	poolTotal    = prometheus.NewDesc("konvoj_db_pool_connections", "Database pool connections by state.", []string{"state"}, nil)
	poolMax      = prometheus.NewDesc("konvoj_db_pool_max_connections", "Database pool size limit.", nil, nil)
	poolAcquires = prometheus.NewDesc("konvoj_db_pool_acquires_total", "Connections acquired from the pool.", nil, nil)
	poolWait     = prometheus.NewDesc("konvoj_db_pool_acquire_wait_seconds_total", "Time spent waiting for a connection.", nil, nil)
	poolEmpty    = prometheus.NewDesc("konvoj_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.", nil, nil)
)

// poolCollector exports pgxpool statistics at scrape time.
type poolCollector struct{ db *pgxpool.Pool }

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolTotal
	ch <- poolMax
	ch <- poolAcquires
	ch <- poolWait
	ch <- poolEmpty
}

func (p poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := p.db.Stat()
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(st.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(st.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(st.TotalConns()), "total")
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWait, prometheus.CounterValue, st.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(poolEmpty, prometheus.CounterValue, float64(st.EmptyAcquireCount()))
}
