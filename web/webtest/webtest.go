// Package webtest runs the whole product for API tests: a fresh migrated
// database, the real Echo server behind a real HTTP listener, and callers
// holding real signed tokens.
package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/app"
)

// Secret is the HS256 secret of test servers.
const Secret = "konvoj-test-secret-0123456789abcdef"

// Env is one running product with its own database.
type Env struct {
	T testing.TB
	// DB is the owner's pool, for fixtures and checks that look past
	// row-level security; the server runs its requests on Requests.
	DB       *pgxpool.Pool
	Requests *pgxpool.Pool
	DBURL    string
	App      *app.App
	Server   *httptest.Server
	Config   config.Config
}

// Option adjusts the environment before the server starts.
type Option func(*setup)

type setup struct {
	cfg     config.Config
	limiter ratelimit.Store
	tracer  pgx.QueryTracer
	db      *pgxpool.Pool
	dbURL   string
	appOpts func(*app.Options)
	owner   bool
}

// WithLimiter turns rate limiting on with the given store.
func WithLimiter(l ratelimit.Store) Option { return func(s *setup) { s.limiter = l } }

// WithConfig edits the configuration.
func WithConfig(f func(*config.Config)) Option { return func(s *setup) { f(&s.cfg) } }

// WithTracer installs a pgx query tracer on the server's request pool.
func WithTracer(t pgx.QueryTracer) Option { return func(s *setup) { s.tracer = t } }

// WithDB makes the server use an existing database (two servers, one DB).
func WithDB(db *pgxpool.Pool, url string) Option {
	return func(s *setup) { s.db, s.dbURL = db, url }
}

// WithRequestsAsOwner makes the server run its requests on the owner's pool,
// which row-level security does not apply to: only for the benchmark that
// measures what the policies cost (BenchmarkRowSecurity), never for a test
// of behaviour.
func WithRequestsAsOwner() Option { return func(s *setup) { s.owner = true } }

// WithApp edits the app options (storage, etc.).
func WithApp(f func(*app.Options)) Option { return func(s *setup) { s.appOpts = f } }

// New starts a product for the test; everything stops at cleanup.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		switch k {
		case "JWT_SECRET":
			return Secret
		case "STORAGE_LOCAL_DIR":
			return t.TempDir()
		}
		return ""
	})
	if err != nil {
		t.Fatalf("webtest: config: %v", err)
	}
	// No limiter unless a test asks: API tests send far more than a burst.
	s := &setup{cfg: cfg}
	for _, o := range opts {
		o(s)
	}
	if s.db == nil {
		s.db, s.dbURL = pgtest.NewWithURL(t, nil)
	}
	requests := s.db
	if !s.owner {
		requests = pgtest.Requests(t, s.dbURL, s.tracer)
	}
	s.cfg.DatabaseURL = s.dbURL
	ctx, cancel := context.WithCancel(context.Background())
	verifier, err := auth.NewVerifier(ctx, auth.VerifierConfig{
		Alg: s.cfg.JWTAlg, Secret: s.cfg.JWTSecret, PublicKeyFile: s.cfg.JWTPublicKeyFile,
		JWKSURL: s.cfg.JWTJWKSURL, Issuer: s.cfg.JWTIssuer, Audience: s.cfg.JWTAudience,
	})
	if err != nil {
		cancel()
		t.Fatalf("webtest: verifier: %v", err)
	}
	ao := app.Options{Server: web.Options{
		Config: s.cfg, DB: requests, System: s.db, Verifier: verifier, Limiter: s.limiter,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}}
	if s.appOpts != nil {
		s.appOpts(&ao)
	}
	a, err := app.New(ctx, ao)
	if err != nil {
		cancel()
		t.Fatalf("webtest: app: %v", err)
	}
	srv := httptest.NewServer(a.Echo)
	t.Cleanup(func() {
		a.CloseStreams() // open streams would hold srv.Close up
		srv.Close()
		a.Close()
		cancel()
	})
	return &Env{T: t, DB: s.db, Requests: requests, DBURL: s.dbURL, App: a, Server: srv, Config: s.cfg}
}

// Company creates a company with the given tier and returns its id.
func (e *Env) Company(name, tier string) uuid.UUID {
	e.T.Helper()
	return fixtures.Company(e.T, e.DB, fixtures.CompanyName(name), fixtures.Tier(tier))
}

// Caller is someone calling the API with a token.
type Caller struct {
	env       *Env
	Token     string
	UserID    uuid.UUID
	CompanyID uuid.UUID
	Role      auth.Role
	Email     string
	Header    http.Header
}

// As returns a caller of the role in the company, with a fresh user id and
// an e-mail made from the role unless one is given.
func (e *Env) As(company uuid.UUID, role auth.Role, email ...string) *Caller {
	e.T.Helper()
	c := &Caller{env: e, UserID: uuid.New(), CompanyID: company, Role: role, Header: http.Header{}}
	c.Email = fmt.Sprintf("%s-%s@example.test", role, c.UserID.String()[:8])
	if len(email) > 0 {
		c.Email = email[0]
	}
	c.Token = e.Sign(jwt.MapClaims{
		"sub":           c.UserID.String(),
		"email":         c.Email,
		"aud":           "authenticated",
		"role":          "authenticated",
		"app_metadata":  map[string]any{"company_id": company.String()},
		"user_metadata": map[string]any{"role": string(role), "first_name": "Test", "last_name": string(role)},
	})
	return c
}

// Anonymous returns a caller without a token.
func (e *Env) Anonymous() *Caller { return &Caller{env: e, Header: http.Header{}} }

// WithToken returns a caller sending the given raw token.
func (e *Env) WithToken(tok string) *Caller {
	return &Caller{env: e, Token: tok, Header: http.Header{}}
}

// Sign signs claims with the test secret (HS256), adding iat and exp when
// they are missing.
func (e *Env) Sign(claims jwt.MapClaims) string {
	e.T.Helper()
	now := time.Now()
	if _, ok := claims["iat"]; !ok {
		claims["iat"] = now.Unix()
	}
	if _, ok := claims["exp"]; !ok {
		claims["exp"] = now.Add(time.Hour).Unix()
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(Secret))
	if err != nil {
		e.T.Fatalf("webtest: sign token: %v", err)
	}
	return tok
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	t      testing.TB
	desc   string
}

// Get, Post, Put, Delete send JSON (body may be nil, a string of raw JSON,
// []byte, or any value to encode).
func (c *Caller) Get(path string) *Response { return c.Do(http.MethodGet, path, nil) }

// Post sends a POST with a JSON body.
func (c *Caller) Post(path string, body any) *Response { return c.Do(http.MethodPost, path, body) }

// Put sends a PUT with a JSON body.
func (c *Caller) Put(path string, body any) *Response { return c.Do(http.MethodPut, path, body) }

// Delete sends a DELETE.
func (c *Caller) Delete(path string) *Response { return c.Do(http.MethodDelete, path, nil) }

// Do sends a JSON request.
func (c *Caller) Do(method, path string, body any) *Response {
	c.env.T.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.env.T.Fatalf("webtest: encode body: %v", err)
		}
		r = bytes.NewReader(raw)
	}
	h := http.Header{}
	if r != nil {
		h.Set("Content-Type", "application/json")
	}
	return c.Send(method, path, r, h)
}

// Send sends a request with any body and headers.
func (c *Caller) Send(method, path string, body io.Reader, header http.Header) *Response {
	c.env.T.Helper()
	req := c.newRequest(c.env.T, method, path, body, header)
	res, err := c.env.Server.Client().Do(req)
	if err != nil {
		c.env.T.Fatalf("webtest: %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.env.T.Fatalf("webtest: read body of %s %s: %v", method, path, err)
	}
	resp := &Response{Status: res.StatusCode, Header: res.Header, Body: b, t: c.env.T, desc: method + " " + path}
	if hook := responseHook; hook != nil {
		hook(c.env.T, req, resp)
	}
	return resp
}

// GetOK is the benchmarks' request: GET path as the caller (its bearer
// token and headers) on the caller's server, the body read and thrown
// away, tb failed unless the answer is 200. It returns the body's size.
// Unlike Get it keeps no body and shows the response to no hook, so a
// benchmark measures the server, not the test's bookkeeping. tb is the
// (sub-)benchmark running the request: FailNow belongs to its goroutine.
func (c *Caller) GetOK(tb testing.TB, path string) int64 {
	tb.Helper()
	return GetOK(tb, c.env.Server.Client(), c.newRequest(tb, http.MethodGet, path, nil, nil))
}

// newRequest is a request as the caller: its headers, then header, then
// its bearer token.
func (c *Caller) newRequest(tb testing.TB, method, path string, body io.Reader, header http.Header) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(method, c.env.Server.URL+path, body)
	if err != nil {
		tb.Fatalf("webtest: new request: %v", err)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req
}

// GetOK sends req with client (a page's cookie-holding client, or any
// other), reads the body into io.Discard and fails tb unless the answer is
// 200; it returns the body's size. req carries no body, so it may be sent
// again and again.
func GetOK(tb testing.TB, client *http.Client, req *http.Request) int64 {
	tb.Helper()
	res, err := client.Do(req)
	if err != nil {
		tb.Fatalf("webtest: %s %s: %v", req.Method, req.URL.RequestURI(), err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		tb.Fatalf("webtest: %s %s: status %d, want 200; body: %s", req.Method, req.URL.RequestURI(), res.StatusCode, head)
	}
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil {
		tb.Fatalf("webtest: read body of %s %s: %v", req.Method, req.URL.RequestURI(), err)
	}
	return n
}

// responseHook, when set (by the OpenAPI contract tests), sees every
// response the API tests produce.
var responseHook func(t testing.TB, req *http.Request, res *Response)

// SetResponseHook installs a function that checks every response.
func SetResponseHook(f func(t testing.TB, req *http.Request, res *Response)) { responseHook = f }

// Expect fails the test unless the status matches, showing the body.
func (r *Response) Expect(status int) *Response {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("%s: status %d, want %d; body: %s", r.desc, r.Status, status, truncate(r.Body))
	}
	return r
}

// ExpectError checks status and error name of an error body.
func (r *Response) ExpectError(status int, name string) map[string]any {
	r.t.Helper()
	r.Expect(status)
	m := r.JSON()
	if m["error"] != name {
		r.t.Fatalf("%s: error %v, want %s; body: %s", r.desc, m["error"], name, truncate(r.Body))
	}
	if msg, _ := m["message"].(string); msg == "" {
		r.t.Fatalf("%s: error body has no message: %s", r.desc, truncate(r.Body))
	}
	return m
}

// JSON decodes the body as an object.
func (r *Response) JSON() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("%s: body is not a JSON object: %v; body: %s", r.desc, err, truncate(r.Body))
	}
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("%s: decode body: %v; body: %s", r.desc, err, truncate(r.Body))
	}
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// Value is the one value the owner's query (past row-level security)
// answers, for checks of what is stored.
func Value[T any](tb testing.TB, e *Env, sql string, args ...any) T {
	tb.Helper()
	var v T
	if err := e.DB.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	return v
}
