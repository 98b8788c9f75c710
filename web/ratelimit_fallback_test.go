package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestDriverBucket: one driver token gets a quarter of its company's
// burst; its refusals spend nothing of the company's bucket, so the
// company's staff keep working (docs/rate-limits.md).
func TestDriverBucket(t *testing.T) {
	env := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()))
	company := env.Company("Acme", "free") // 60/min, burst 100: a driver 15/min, burst 25
	drv := env.As(company, auth.RoleDriver, "eva@example.test")
	accepted, refused := 0, 0
	for refused < 10 {
		res := drv.Get("/api/v0/drivers")
		switch res.Status {
		case http.StatusOK:
			accepted++
			if accepted == 1 && res.Header.Get("X-RateLimit-Limit") != "15" {
				t.Fatalf("driver's X-RateLimit-Limit %q, want 15", res.Header.Get("X-RateLimit-Limit"))
			}
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("driver: status %d", res.Status)
		}
		if accepted > 40 {
			t.Fatal("the driver's own bucket never refused")
		}
	}
	if accepted < 25 {
		t.Fatalf("driver refused after %d requests, want its burst of 25", accepted)
	}
	res := env.As(company, auth.RoleAdmin).Get("/api/v0/drivers").Expect(http.StatusOK)
	// 100 − the driver's accepted requests − this one; refill only adds.
	if rem, _ := strconv.Atoi(res.Header.Get("X-RateLimit-Remaining")); rem < 100-accepted-1 {
		t.Fatalf("company bucket has %d left after the driver's %d accepted and %d refused requests: refusals were charged", rem, accepted, refused)
	}
}

// startRedis runs a private redis-server on a free port until stopped.
func startRedis(t *testing.T, port int) (stop func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (scripts/install-deps.sh installs it)")
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	for i := 0; c.Ping(context.Background()).Err() != nil; i++ {
		if i > 100 {
			_ = cmd.Process.Kill()
			t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// TestRedisOutageFallsBackToMemory: two instances share a Redis budget;
// with Redis stopped, each limits from its memory, /readyz says degraded
// (still 200) and the fallback metric counts; once Redis is back, the
// budget is shared again.
func TestRedisOutageFallsBackToMemory(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	stop := startRedis(t, port)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	prefix := "konvoj-test:" + uuid.NewString() + ":" // one prefix: one budget for both instances
	newStore := func() *ratelimit.Fallback {
		c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1,
			DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { c.Close() })
		f := ratelimit.NewFallback(ratelimit.NewRedis(c, prefix), quiet)
		f.Retry = 100 * time.Millisecond
		return f
	}
	oneStore, twoStore := newStore(), newStore()
	one := webtest.New(t, webtest.WithLimiter(oneStore))
	two := webtest.New(t, webtest.WithLimiter(twoStore), webtest.WithDB(one.DB, one.DBURL))

	// exhaust spends a fresh company's burst of 100 through instance one
	// and reports whether instance two then refuses too (one budget).
	exhaust := func(name string) (sharedRefusal bool) {
		company := one.Company(name, "free")
		a := one.As(company, auth.RoleAdmin)
		b := two.As(company, auth.RoleAdmin)
		b.Token = a.Token
		for i := 0; i < 130; i++ {
			if a.Get("/api/v0/audit-logs").Status == http.StatusTooManyRequests {
				break
			}
			if i == 129 {
				t.Fatalf("%s: instance one never refused", name)
			}
		}
		res := b.Get("/api/v0/audit-logs")
		return res.Status == http.StatusTooManyRequests || res.Header.Get("X-RateLimit-Remaining") == "0"
	}
	ready := func(e *webtest.Env) string {
		return e.Anonymous().Get("/readyz").Expect(http.StatusOK).JSON()["status"].(string)
	}

	if !exhaust("Shared") {
		t.Fatal("with Redis up, instance two has a budget of its own")
	}
	if s := ready(one); s != "ok" {
		t.Fatalf("readyz with Redis up: %s", s)
	}

	stop()
	// Limits still apply, from each instance's memory.
	if exhaust("Outage") {
		t.Fatal("with Redis down, instance two shares instance one's memory?")
	}
	if s := ready(one); s != "degraded" {
		t.Fatalf("readyz with Redis down: %s, want degraded", s)
	}
	metrics := string(one.Anonymous().Get("/metrics").Expect(http.StatusOK).Body)
	if !strings.Contains(metrics, "konvoj_ratelimit_fallbacks_total") || strings.Contains(metrics, "konvoj_ratelimit_fallbacks_total 0\n") {
		t.Fatal("the fallback metric did not count")
	}

	startRedis(t, port)
	// Back: the next attempt after the rest finds Redis; poll, no timing.
	for i := 0; ready(one) != "ok" || ready(two) != "ok"; i++ {
		one.Anonymous().Get("/api/v0/openapi.json")
		two.Anonymous().Get("/api/v0/openapi.json")
		if i > 200 {
			t.Fatal("the instances did not return to Redis")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !exhaust("Back") {
		t.Fatal("after Redis came back, the budget is not shared again")
	}
}
