package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/web/webtest"
)

func claimsFor(company uuid.UUID, role string) jwt.MapClaims {
	return jwt.MapClaims{
		"sub": uuid.NewString(), "email": "someone@example.test",
		"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": role},
	}
}

func TestBadTokensAreUnauthorized(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)

	none := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, claimsFor(company, "admin"))
		tok.Claims.(jwt.MapClaims)["exp"] = time.Now().Add(time.Hour).Unix()
		s, _ := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		return s
	}()
	wrongKey := func() string {
		c := claimsFor(company, "admin")
		c["exp"] = time.Now().Add(time.Hour).Unix()
		s, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("another-secret-another-secret-xx"))
		return s
	}()
	rs256 := func() string {
		c := claimsFor(company, "admin")
		c["exp"] = time.Now().Add(time.Hour).Unix()
		s, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, c).SignedString(rsaKey)
		return s
	}()
	with := func(edit func(jwt.MapClaims)) string {
		c := claimsFor(company, "admin")
		edit(c)
		return env.Sign(c)
	}
	cases := map[string]string{
		"alg none":        none,
		"wrong key":       wrongKey,
		"RS256 on HS256":  rs256,
		"expired":         with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }),
		"no exp":          with(func(c jwt.MapClaims) { c["exp"] = nil }),
		"future iat":      with(func(c jwt.MapClaims) { c["iat"] = time.Now().Add(5 * time.Minute).Unix() }),
		"no company":      with(func(c jwt.MapClaims) { delete(c, "app_metadata") }),
		"garbage":         "not.a.token",
		"tampered claims": tamper(env.Sign(claimsFor(company, "driver"))),
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			body := env.WithToken(tok).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
			if body["message"] != "Invalid token" {
				t.Fatalf("message %q, want Invalid token", body["message"])
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		body := env.Anonymous().Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
		if body["message"] != "Missing token" {
			t.Fatalf("message %q, want Missing token", body["message"])
		}
	})
	t.Run("leeway: expired 20 s ago still accepted", func(t *testing.T) {
		env.WithToken(with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-20 * time.Second).Unix() })).
			Get("/api/v0/audit-logs").Expect(http.StatusOK)
	})
}

// tamper swaps the payload for one claiming admin, keeping the signature.
func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	payload = []byte(strings.Replace(string(payload), `"driver"`, `"admin"`, 1))
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

func TestAudienceAndIssuer(t *testing.T) {
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) {
		c.JWTAudience = "authenticated"
		c.JWTIssuer = "https://id.example.test/auth/v1"
	}))
	company := env.Company("Acme", "free")
	good := claimsFor(company, "admin")
	good["aud"], good["iss"] = "authenticated", "https://id.example.test/auth/v1"
	env.WithToken(env.Sign(good)).Get("/api/v0/audit-logs").Expect(http.StatusOK)

	wrongAud := claimsFor(company, "admin")
	wrongAud["aud"], wrongAud["iss"] = "someone-else", "https://id.example.test/auth/v1"
	env.WithToken(env.Sign(wrongAud)).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")

	noAud := claimsFor(company, "admin")
	noAud["iss"] = "https://id.example.test/auth/v1"
	env.WithToken(env.Sign(noAud)).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")

	wrongIss := claimsFor(company, "admin")
	wrongIss["aud"], wrongIss["iss"] = "authenticated", "https://evil.example.test"
	env.WithToken(env.Sign(wrongIss)).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
}

func TestTenancyAndClaimLayouts(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")

	t.Run("unknown company is AccessDenied", func(t *testing.T) {
		env.WithToken(env.Sign(claimsFor(uuid.New(), "admin"))).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "AccessDenied")
	})
	t.Run("current layout", func(t *testing.T) {
		env.WithToken(env.Sign(claimsFor(company, "hr_manager"))).Get("/api/v0/audit-logs").Expect(http.StatusOK)
		env.WithToken(env.Sign(claimsFor(company, "accountant"))).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
	})
	t.Run("earlier layout", func(t *testing.T) {
		admin := env.Sign(jwt.MapClaims{"sub": uuid.NewString(), "email": "old@example.test", "company_id": company.String(), "roles": []string{"driver", "admin"}})
		env.WithToken(admin).Get("/api/v0/audit-logs").Expect(http.StatusOK)
		noRole := env.Sign(jwt.MapClaims{"sub": uuid.NewString(), "email": "old2@example.test", "company_id": company.String()})
		env.WithToken(noRole).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
	})
	t.Run("users are provisioned just in time", func(t *testing.T) {
		sub := uuid.New()
		c := claimsFor(company, "accountant")
		c["sub"], c["email"] = sub.String(), "first@example.test"
		env.WithToken(env.Sign(c)).Get("/api/v0/audit-logs")
		c["email"], c["user_metadata"] = "second@example.test", map[string]any{"role": "hr_manager"}
		env.WithToken(env.Sign(c)).Get("/api/v0/audit-logs").Expect(http.StatusOK)
		var email, role string
		if err := env.DB.QueryRow(context.Background(), "SELECT email, role FROM users WHERE id = $1", sub).Scan(&email, &role); err != nil {
			t.Fatal(err)
		}
		if email != "second@example.test" || role != "hr_manager" {
			t.Fatalf("user row not refreshed: %s %s", email, role)
		}
	})
}

type jwksServer struct {
	mu   sync.Mutex
	keys []map[string]string
	srv  *httptest.Server
}

func (j *jwksServer) add(kid string, k *rsa.PublicKey) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.keys = append(j.keys, map[string]string{
		"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
	})
}

func TestRS256WithJWKSRotation(t *testing.T) {
	j := &jwksServer{}
	j.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.mu.Lock()
		defer j.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": j.keys})
	}))
	defer j.srv.Close()
	key1, _ := rsa.GenerateKey(rand.Reader, 2048)
	key2, _ := rsa.GenerateKey(rand.Reader, 2048)
	j.add("key-1", &key1.PublicKey)

	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) {
		c.JWTAlg, c.JWTSecret, c.JWTJWKSURL = "RS256", "", j.srv.URL
	}))
	company := env.Company("Acme", "free")
	sign := func(kid string, k *rsa.PrivateKey) string {
		c := claimsFor(company, "admin")
		c["exp"], c["iat"] = time.Now().Add(time.Hour).Unix(), time.Now().Unix()
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
		tok.Header["kid"] = kid
		s, err := tok.SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	env.WithToken(sign("key-1", key1)).Get("/api/v0/audit-logs").Expect(http.StatusOK)
	env.WithToken(sign("key-2", key2)).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")

	// The provider rotates: a token with the new kid works without a restart.
	j.add("key-2", &key2.PublicKey)
	time.Sleep(10 * time.Second) // the unknown-kid refetch is rate limited to one per 10 s
	env.WithToken(sign("key-2", key2)).Get("/api/v0/audit-logs").Expect(http.StatusOK)

	// An HS256 token signed with anything is refused while RS256 is configured.
	c := claimsFor(company, "admin")
	c["exp"] = time.Now().Add(time.Hour).Unix()
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(webtest.Secret))
	env.WithToken(hs).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
}

func TestES256WithPEMFile(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	file := filepath.Join(t.TempDir(), "es256.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) {
		c.JWTAlg, c.JWTSecret, c.JWTPublicKeyFile = "ES256", "", file
	}))
	company := env.Company("Acme", "free")
	c := claimsFor(company, "admin")
	c["exp"] = time.Now().Add(time.Hour).Unix()
	tok, _ := jwt.NewWithClaims(jwt.SigningMethodES256, c).SignedString(key)
	env.WithToken(tok).Get("/api/v0/audit-logs").Expect(http.StatusOK)

	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	bad, _ := jwt.NewWithClaims(jwt.SigningMethodES256, c).SignedString(other)
	env.WithToken(bad).Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
}

func TestErrorsAndRequestIDs(t *testing.T) {
	env := webtest.New(t)
	env.App.Echo.GET("/api/v0/test-panic", func(echo.Context) error { panic("boom") })
	env.App.Echo.GET("/api/v0/test-error", func(echo.Context) error { return errors.New("database exploded: secret detail") })
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)

	admin.Get("/api/v0/no-such-thing").ExpectError(http.StatusNotFound, "NotFound")
	// An unknown route is 404 with or without a token: no route, nothing to authorise.
	env.Anonymous().Get("/api/v0/no-such-thing").ExpectError(http.StatusNotFound, "NotFound")
	env.Anonymous().Get("/nowhere").Expect(http.StatusNotFound)

	res := admin.Post("/api/v0/audit-logs", map[string]any{})
	res.ExpectError(http.StatusMethodNotAllowed, "MethodNotAllowed")
	if !strings.Contains(res.Header.Get("Allow"), "GET") {
		t.Fatalf("405 without Allow: %v", res.Header)
	}

	for _, p := range []string{"/api/v0/orders", "/api/v0/customers/123", "/api/v0/invoices", "/api/v0/gps/positions",
		"/api/v0/analytics/reports", "/api/v0/mobile", "/api/v0/integrations/x"} {
		admin.Get(p).ExpectError(http.StatusNotImplemented, "NotImplemented")
	}

	for _, p := range []string{"/api/v0/test-panic", "/api/v0/test-error"} {
		res := admin.Get(p)
		body := res.ExpectError(http.StatusInternalServerError, "ServerError")
		if body["request_id"] != res.Header.Get("X-Request-ID") || body["request_id"] == "" {
			t.Fatalf("500 body must carry the request id: %v", body)
		}
		if strings.Contains(string(res.Body), "secret detail") || strings.Contains(string(res.Body), "goroutine") {
			t.Fatalf("500 leaks internals: %s", res.Body)
		}
	}

	admin.Get("/api/v0/audit-logs?page=0").ExpectError(http.StatusBadRequest, "BadRequest")
	admin.Get("/api/v0/audit-logs?page=abc").ExpectError(http.StatusBadRequest, "BadRequest")
	admin.Get("/api/v0/audit-logs?entity_type=spaceship").ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	t.Run("request id echoed when valid, replaced when not", func(t *testing.T) {
		c := env.As(company, auth.RoleAdmin)
		c.Header.Set("X-Request-ID", "abc-123")
		if got := c.Get("/api/v0/audit-logs").Header.Get("X-Request-ID"); got != "abc-123" {
			t.Fatalf("request id %q", got)
		}
		c.Header.Set("X-Request-ID", "bad id with spaces <script>")
		if got := c.Get("/api/v0/audit-logs").Header.Get("X-Request-ID"); got == "" || strings.Contains(got, " ") {
			t.Fatalf("request id %q", got)
		}
		if env.Anonymous().Get("/healthz").Header.Get("X-Request-ID") == "" {
			t.Fatal("health response has no request id")
		}
	})
}

func TestHealthReadyMetrics(t *testing.T) {
	env := webtest.New(t)
	env.Anonymous().Get("/healthz").Expect(http.StatusOK)
	env.Anonymous().Get("/readyz").Expect(http.StatusOK)
	env.Anonymous().Get("/api/v0/audit-logs")
	res := env.Anonymous().Get("/metrics").Expect(http.StatusOK)
	for _, want := range []string{`konvoj_http_requests_total{method="GET",route="/api/v0/audit-logs",status="401"}`,
		"konvoj_http_request_duration_seconds_bucket", "konvoj_db_pool_connections"} {
		if !strings.Contains(string(res.Body), want) {
			t.Fatalf("metrics lack %s", want)
		}
	}
}

func TestRateLimitHeadersAnd429(t *testing.T) {
	env := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()))
	company := env.Company("Acme", "starter") // 120/min, burst 200
	admin := env.As(company, auth.RoleAdmin)
	var last *webtest.Response
	for i := 0; i < 200; i++ {
		last = admin.Get("/api/v0/audit-logs").Expect(http.StatusOK)
		if i == 0 {
			if last.Header.Get("X-RateLimit-Limit") != "120" || last.Header.Get("X-RateLimit-Remaining") != "199" {
				t.Fatalf("headers on first request: %v", last.Header)
			}
			reset, _ := strconv.ParseInt(last.Header.Get("X-RateLimit-Reset"), 10, 64)
			if reset < time.Now().Unix() || reset > time.Now().Add(2*time.Minute).Unix() {
				t.Fatalf("reset %d not within the next 2 minutes", reset)
			}
		}
	}
	// Tokens refill at 2 per second while the loop runs, so a busy machine
	// may see a few more accepted: keep asking until the limiter refuses,
	// which must happen within a few requests of the burst.
	var refused *webtest.Response
	for i := 0; i < 50; i++ {
		res := admin.Get("/api/v0/audit-logs")
		if res.Status == http.StatusTooManyRequests {
			refused = res
			break
		}
		res.Expect(http.StatusOK)
	}
	if refused == nil {
		t.Fatalf("no 429 within 50 requests after the burst of 200; last remaining %s", last.Header.Get("X-RateLimit-Remaining"))
	}
	body := refused.ExpectError(http.StatusTooManyRequests, "RateLimitExceeded")
	if ra, ok := body["retry_after"].(float64); !ok || ra < 1 {
		t.Fatalf("retry_after %v", body["retry_after"])
	}
	if refused.Header.Get("Retry-After") == "" || refused.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429 headers: %v", refused.Header)
	}
	// Another company has its own bucket.
	other := env.Company("Other", "free")
	env.As(other, auth.RoleAdmin).Get("/api/v0/audit-logs").Expect(http.StatusOK)
	// Health and metrics are never limited.
	env.Anonymous().Get("/healthz").Expect(http.StatusOK)
}

func TestTwoInstancesShareOneRedisBudget(t *testing.T) {
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	newClient := func() *redis.Client {
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		return c
	}
	probe := newClient()
	if err := probe.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer (%v): set REDIS_URL, or run make test, which starts one", url, err)
	}
	prefix := "konvoj-test:" + uuid.NewString() + ":"
	one := webtest.New(t, webtest.WithLimiter(ratelimit.NewRedis(newClient(), prefix)))
	two := webtest.New(t, webtest.WithLimiter(ratelimit.NewRedis(newClient(), prefix)), webtest.WithDB(one.DB, one.DBURL))
	company := one.Company("Acme", "free") // burst 100
	a := one.As(company, auth.RoleAdmin)
	b := two.As(company, auth.RoleAdmin)
	b.Token = a.Token
	for i := 0; i < 100; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		c.Get("/api/v0/audit-logs").Expect(http.StatusOK)
	}
	// The bucket refills one token a second while the loop runs, so a busy
	// machine may see a few more accepted: keep asking instance one until
	// it refuses, which must happen within a few requests of the burst.
	refused := false
	for i := 0; i < 20 && !refused; i++ {
		res := a.Get("/api/v0/audit-logs")
		refused = res.Status == http.StatusTooManyRequests
		if !refused {
			res.Expect(http.StatusOK)
		}
	}
	if !refused {
		t.Fatal("instance one did not refuse within 20 requests after the shared burst of 100")
	}
	// Instance two finds the same empty bucket: refused, or at most the one
	// token refilled since (never the half of the burst it would have left
	// with a bucket of its own).
	res := b.Get("/api/v0/audit-logs")
	if res.Status != http.StatusTooManyRequests && res.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("instance two: status %d, remaining %s: it has a budget of its own", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
}

// An unauthenticated client is limited by its address; X-Forwarded-For is
// believed only from TRUSTED_PROXIES: a loopback or private peer that is
// not listed cannot rotate the header for fresh buckets, a listed proxy
// names the real client.
func TestUnauthenticatedLimitCannotBeDodgedWithForwardedFor(t *testing.T) {
	send := func(env *webtest.Env, remote, xff string) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v0/drivers", nil)
		req.RemoteAddr = remote
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		rec := httptest.NewRecorder()
		env.App.Echo.ServeHTTP(rec, req)
		return rec.Code
	}
	dodge := func(env *webtest.Env, remote string) bool {
		for i := 0; i < 130; i++ {
			if send(env, remote, fmt.Sprintf("198.51.100.%d", i%250)) == http.StatusTooManyRequests {
				return false
			}
		}
		return true
	}
	plain := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()))
	for _, remote := range []string{"203.0.113.7:40000", "127.0.0.1:40000", "10.0.0.2:5000"} {
		if dodge(plain, remote) {
			t.Fatalf("peer %s escaped the per-address limit by varying X-Forwarded-For without TRUSTED_PROXIES", remote)
		}
	}
	_, proxies, _ := net.ParseCIDR("10.0.0.0/8")
	behind := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()),
		webtest.WithConfig(func(c *config.Config) { c.TrustedProxies = []*net.IPNet{proxies} }))
	if dodge(behind, "127.0.0.1:40000") {
		t.Fatal("an unlisted loopback peer is trusted")
	}
	// Behind a listed proxy, each forwarded client has its own bucket.
	if !dodge(behind, "10.0.0.2:5000") {
		t.Fatal("clients behind a trusted proxy share one bucket")
	}
}
