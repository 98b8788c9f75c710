// Package web is the Echo server: middleware (request id, logging, recover,
// metrics, authentication, rate limiting), error mapping, health and metrics
// endpoints, and the mounting of the API and the pages. Handlers stay thin;
// rules live in the internal/<domain> services.
package web

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/idempotency"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/internal/tenants"
)

// Context keys set on the Echo context for the request log line.
const (
	ctxPrincipal = "konvoj.principal"
	ctxAuthErr   = "konvoj.auth_error"
	ctxErrorName = "konvoj.error_name"
	ctxPublicURL = "konvoj.public_url"
)

// StatusClientClosedRequest is logged for a request whose client went away
// before the answer (nginx's 499): not a server error.
const StatusClientClosedRequest = 499

// Options are the server's dependencies, built by cmd/konvoj (and by tests).
type Options struct {
	Config config.Config
	// DB is the request pool (postgres.OpenRequests): every query of a
	// request runs on it, under row-level security for the caller's company.
	DB *pgxpool.Pool
	// System is the owner's pool (postgres.OpenSystem), for the background
	// jobs and the few steps that span companies (tenants.NewRequestService).
	System   *pgxpool.Pool
	Verifier *auth.Verifier
	Limiter  ratelimit.Store
	Logger   *slog.Logger
	// Deadlines are the request deadlines HTTPServer applies; a request
	// under an Idempotency-Key is held to the longest of them, and its key
	// is taken over only after it (web/idempotency.go). Zero means
	// DefaultDeadlines.
	Deadlines Deadlines
	// Hub hands the committed live events to this instance's streams
	// (internal/live); nil: GET /api/v0/events answers 500.
	Hub *live.Hub
	// Live shapes the streams (zero: DefaultLiveOptions).
	Live LiveOptions
}

// Server is the HTTP server of the whole product.
type Server struct {
	Echo     *echo.Echo
	opts     Options
	log      *slog.Logger
	tenants  *tenants.Service
	metrics  *metrics
	limiter  ratelimit.Store
	verifier *auth.Verifier
	// idempotency keeps the responses of POSTs sent with an
	// Idempotency-Key (web/idempotency.go).
	idempotency *idempotency.Store
	// longest is the longest request deadline: a request under an
	// Idempotency-Key runs no longer.
	longest time.Duration
	// public is PUBLIC_URL: the base of every absolute link.
	public *url.URL

	// renderPageError renders an HTML error page for page routes; nil
	// means JSON everywhere.
	renderPageError ErrorPageRenderer
	// compressor is the compression library's middleware (compress).
	compressor func(http.Handler) http.Handler

	// hub, live and leases serve the live-update streams (live.go).
	hub    *live.Hub
	live   LiveOptions
	leases ratelimit.Leases
}

// ErrorPageRenderer renders the HTML error page of a request outside the
// API (the pages package's); a non-nil answer falls back to the JSON body.
type ErrorPageRenderer func(c echo.Context, status int, body ErrorBody, err error) error

// NewServer builds the server with every route mounted.
//
// What the server calls but the services provide is given here, never set
// later: tenants resolves a request's identity to its Principal, and
// errorPages renders the HTML error pages (nil: JSON everywhere). Both are
// built before the server (app.New builds the services, then the pages with
// pages.New, which needs no server); errorPages is a function rather than
// the pages themselves because the pages package imports this one to mount
// its routes.
func NewServer(o Options, tenants *tenants.Service, errorPages ErrorPageRenderer) *Server {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	e := echo.New()
	e.HideBanner = true
	e.JSONSerializer = jsonSerializer{}
	e.HidePort = true
	e.IPExtractor = clientIP(o.Config.TrustedProxies)
	if o.Deadlines == (Deadlines{}) {
		o.Deadlines = DefaultDeadlines
	}
	public, err := url.Parse(o.Config.PublicURL)
	if err != nil || public.Host == "" {
		public = &url.URL{Scheme: "http", Host: "localhost:8080"}
	}
	s := &Server{
		public:   public,
		Echo:     e,
		opts:     o,
		log:      o.Logger,
		tenants:  tenants,
		metrics:  newMetrics(o.DB, o.Limiter, o.Hub),
		limiter:  o.Limiter,
		verifier: o.Verifier,

		idempotency: idempotency.NewStore(o.DB, idempotency.AbandonedAfter(o.Deadlines.Longest())),
		longest:     o.Deadlines.Longest(),

		renderPageError: errorPages,
		compressor:      newCompressor(),

		hub:    o.Hub,
		live:   o.Live.withDefaults(),
		leases: leasesOf(o.Limiter),
	}
	e.HTTPErrorHandler = s.errorHandler
	e.Use(s.compress, s.neverSilentOK, s.requestID, s.securityHeaders, s.metrics.middleware, s.logRequests, s.recoverPanics, s.bodies)

	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.ready)
	if o.Config.MetricsAddr == "" {
		e.GET("/metrics", echo.WrapHandler(s.metrics.handler()))
	}
	return s
}

// clientIP extracts the client address (per-address rate limit, audit
// ip_address): the peer's address, or, when the peer is one of the
// TRUSTED_PROXIES, the nearest address in X-Forwarded-For that is not a
// trusted proxy. Without trusted proxies the header is ignored: anyone could
// otherwise pick a new address per request and escape the limit.
func clientIP(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// MetricsHandler serves /metrics; with METRICS_ADDR set, cmd/konvoj serves
// it on that listener only (the main one answers 404 there).
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler())
	return mux
}

// PublicURL is PUBLIC_URL, the base of every absolute link in an answer
// (docs/security.md): never the request's Host header.
func PublicURL(c echo.Context) url.URL {
	if u, ok := c.Get(ctxPublicURL).(*url.URL); ok {
		return *u
	}
	return url.URL{Scheme: "http", Host: "localhost:8080"}
}

// securityHeaders are the headers of every answer: a Permissions-Policy
// that turns off the browser features the product never uses, nosniff,
// HSTS when PUBLIC_URL is https, and on the API Cache-Control: no-store,
// since its answers hold personal data (birth numbers, bank accounts,
// addresses) that no cache may keep; a handler whose answer may be kept
// (the OpenAPI document) sets its own (docs/security.md).
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	hsts := s.opts.Config.HTTPS()
	return func(c echo.Context) error {
		c.Set(ctxPublicURL, s.public)
		h := c.Response().Header()
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()")
		h.Set("X-Content-Type-Options", "nosniff")
		if hsts {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		if isAPI(c.Request().URL.Path) {
			h.Set(echo.HeaderCacheControl, "no-store")
		}
		return next(c)
	}
}

// Routes registers routes under a prefix with a fixed middleware chain. The
// chain is attached to each route rather than to an Echo group, because a
// group's catch-all would turn every 405 Method Not Allowed into a 404.
type Routes struct {
	g  *echo.Group
	mw []echo.MiddlewareFunc
}

// GET registers a GET route.
func (r *Routes) GET(path string, h echo.HandlerFunc) *echo.Route { return r.g.GET(path, h, r.mw...) }

// POST registers a POST route.
func (r *Routes) POST(path string, h echo.HandlerFunc) *echo.Route { return r.g.POST(path, h, r.mw...) }

// PUT registers a PUT route.
func (r *Routes) PUT(path string, h echo.HandlerFunc) *echo.Route { return r.g.PUT(path, h, r.mw...) }

// DELETE registers a DELETE route.
func (r *Routes) DELETE(path string, h echo.HandlerFunc) *echo.Route {
	return r.g.DELETE(path, h, r.mw...)
}

// Any registers a route for every method.
func (r *Routes) Any(path string, h echo.HandlerFunc) []*echo.Route { return r.g.Any(path, h, r.mw...) }

// API returns the authenticated, rate-limited /api/v0 routes.
func (s *Server) API() *Routes {
	return &Routes{g: s.Echo.Group("/api/v0"), mw: []echo.MiddlewareFunc{s.authenticate, s.rateLimit, s.requireAuth, wholeBody, s.idempotent}}
}

// PublicAPI returns /api/v0 routes that need no token (the OpenAPI
// document); they are rate limited per client address.
func (s *Server) PublicAPI() *Routes {
	return &Routes{g: s.Echo.Group("/api/v0"), mw: []echo.MiddlewareFunc{s.authenticate, s.rateLimit}}
}

// Group returns routes under prefix with the given middleware chain, for
// the pages package (which brings its own session and CSRF middleware).
func (s *Server) Group(prefix string, mw ...echo.MiddlewareFunc) *Routes {
	return &Routes{g: s.Echo.Group(prefix), mw: mw}
}

// PageRateLimit is the limiter middleware for page routes: the signed-in
// person's own page bucket when a principal is set (SetPrincipal must run
// first), else per client address. Pages never spend the company's API
// budget.
func (s *Server) PageRateLimit() echo.MiddlewareFunc { return s.pageRateLimit }

func (s *Server) ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.opts.DB.Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
	}
	if d, ok := s.limiter.(degradable); ok && d.Degraded() {
		// Still serving, limits from this instance's memory: ready, but
		// the operator should know (docs/rate-limits.md).
		return c.JSON(http.StatusOK, map[string]string{"status": "degraded", "database": "ok", "rate_limiter": "memory"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "database": "ok"})
}

// degradable is a limiter that can fall back to memory (ratelimit.Fallback).
type degradable interface {
	Degraded() bool
	Fallbacks() uint64
}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestID echoes a well-formed incoming X-Request-ID, else makes one.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !validRequestID.MatchString(id) {
			id = uuid.NewString()
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

// logRequests writes one structured line per request. No query string, body
// or token is logged: they may hold personal data.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err == nil && !c.Response().Committed {
			// A handler that gave up on a body it could not read still
			// answers why.
			err = bodyFailure(c)
		}
		if err != nil {
			c.Error(err)
		}
		req := c.Request()
		status := loggedStatus(c)
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		if !s.log.Enabled(req.Context(), level) {
			return nil // LOG_LEVEL=warn or error: no line, so no attributes to build
		}
		attrs := []slog.Attr{
			slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)),
			slog.String("method", req.Method),
			slog.String("path", req.URL.Path),
			slog.String("route", c.Path()),
			slog.Int("status", status),
			slog.Int64("bytes", c.Response().Size),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
		}
		if p, ok := c.Get(ctxPrincipal).(auth.Principal); ok {
			attrs = append(attrs, slog.String("company_id", p.CompanyID.String()), slog.String("user_id", p.UserID.String()), slog.String("role", string(p.Role)))
		}
		if name, ok := c.Get(ctxErrorName).(string); ok {
			attrs = append(attrs, slog.String("error", name))
		}
		s.log.LogAttrs(req.Context(), level, "request", attrs...)
		return nil
	}
}

// loggedStatus is the answer's status for the log and the metrics: 499
// when the client went away before any answer was written.
func loggedStatus(c echo.Context) int {
	if c.Request().Context().Err() != nil && !c.Response().Committed {
		return StatusClientClosedRequest
	}
	return c.Response().Status
}

// neverSilentOK ends the connection of a request that has no answer
// because its client went away (logged and counted as 499 by then):
// net/http would otherwise send an empty 200 OK when the handler returns,
// and a client that stopped sending but still listens (a half-closed
// connection) would read it as success (docs/security.md, "Timeouts").
func (s *Server) neverSilentOK(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if !c.Response().Committed && c.Request().Context().Err() != nil {
			panic(http.ErrAbortHandler) // net/http closes the connection, writes nothing
		}
		return err
	}
}

// recoverPanics turns a panic into a logged 500 with the request id.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.ErrorContext(c.Request().Context(), "panic",
					slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)),
					slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
				err = apperr.New(apperr.KindInternal, "msg.common.server_error")
			}
		}()
		return next(c)
	}
}

// authenticate verifies the bearer token and resolves the principal; a
// failure is kept for requireAuth so the limiter can still count the
// request by client address.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := s.principalFromRequest(c.Request())
		if err != nil {
			c.Set(ctxAuthErr, err)
			return next(c)
		}
		p.IPAddress = c.RealIP()
		p.UserAgent = c.Request().UserAgent()
		SetPrincipal(c, p)
		return next(c)
	}
}

func (s *Server) principalFromRequest(r *http.Request) (auth.Principal, error) {
	h := r.Header.Get(echo.HeaderAuthorization)
	if h == "" {
		return auth.Principal{}, apperr.Unauthorized("msg.auth.missing_token")
	}
	scheme, raw, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(raw) == "" {
		return auth.Principal{}, apperr.Unauthorized("msg.auth.missing_token")
	}
	id, err := s.verifier.Verify(strings.TrimSpace(raw))
	if err != nil {
		return auth.Principal{}, err
	}
	return s.tenants.Principal(r.Context(), id)
}

func (s *Server) requireAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err, ok := c.Get(ctxAuthErr).(error); ok {
			return err
		}
		return next(c)
	}
}

// rateLimit takes a token from the company's bucket (its tier's limits), or
// from the client address's bucket at the free tier when unauthenticated.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, ok := c.Get(ctxPrincipal).(auth.Principal)
		if !ok {
			return s.limit(c, next, bucket{"ip:" + c.RealIP(), ratelimit.ForTier("free")})
		}
		company := bucket{"company:" + p.CompanyID.String(), ratelimit.ForTier(p.CompanyTier)}
		if p.Role == auth.RoleDriver {
			// One driver token gets a quarter of its company's budget, and
			// its refusals do not spend the company's tokens.
			return s.limit(c, next, bucket{"driver:" + p.UserID.String(), ratelimit.ForDriver(company.limit)}, company)
		}
		return s.limit(c, next, company)
	}
}

// bucket is one rate-limit bucket: its key and shape.
type bucket struct {
	key   string
	limit ratelimit.Limit
}

// pageRateLimit takes a token from the signed-in person's page bucket
// (ratelimit.ForPages), never from the company's API bucket; signed out,
// from the client address's bucket like the API.
func (s *Server) pageRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		b := bucket{"ip:" + c.RealIP(), ratelimit.ForTier("free")}
		if p, ok := c.Get(ctxPrincipal).(auth.Principal); ok {
			b = bucket{"page:user:" + p.UserID.String(), ratelimit.ForPages()}
		}
		return s.limit(c, next, b)
	}
}

// limit takes one token from each bucket in order, stopping at the first
// that refuses (so a refusal by a caller's own bucket spends nothing of the
// next), sets the X-RateLimit headers from the tightest bucket, and
// refuses with 429 when a bucket is empty.
func (s *Server) limit(c echo.Context, next echo.HandlerFunc, buckets ...bucket) error {
	if s.limiter == nil {
		return next(c)
	}
	var shown ratelimit.Result
	for i, b := range buckets {
		res, err := s.limiter.Take(c.Request().Context(), b.key, b.limit)
		if err != nil {
			// A limiter outage must not take the API down: log and serve.
			s.log.WarnContext(c.Request().Context(), "rate limiter unavailable", slog.Any("error", err))
			return next(c)
		}
		if i == 0 || !res.Allowed || res.Remaining < shown.Remaining {
			shown = res
		}
		if !res.Allowed {
			break
		}
	}
	h := c.Response().Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(shown.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(shown.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(shown.Reset.Unix(), 10))
	if !shown.Allowed {
		secs := int((shown.RetryAfter + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		return &RateLimitedError{RetryAfter: secs}
	}
	return next(c)
}

// SetPrincipal records the caller of a request (from the API's token or the
// pages' session cookie), so handlers, the request log and the rate limiter
// see it, and the request's queries see the caller's company and no other
// (row-level security, docs/security.md).
func SetPrincipal(c echo.Context, p auth.Principal) {
	c.Set(ctxPrincipal, p)
	ctx := postgres.WithCompany(c.Request().Context(), p.CompanyID)
	c.SetRequest(c.Request().WithContext(ctx))
}

// Principal returns the caller of an authenticated request.
func Principal(c echo.Context) auth.Principal {
	p, _ := c.Get(ctxPrincipal).(auth.Principal)
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }
