package ratelimit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestForTier(t *testing.T) {
	tests := []struct {
		tier string
		want Limit
	}{
		{"free", Limit{PerMinute: 60, Burst: 100}},
		{"starter", Limit{PerMinute: 120, Burst: 200}},
		{"professional", Limit{PerMinute: 180, Burst: 300}},
		{"business", Limit{PerMinute: 240, Burst: 400}},
		{"enterprise", Limit{PerMinute: 300, Burst: 500}},
		{"platinum", Limit{PerMinute: 60, Burst: 100}},
		{"", Limit{PerMinute: 60, Burst: 100}},
		{"Enterprise", Limit{PerMinute: 60, Burst: 100}},
	}
	for _, tt := range tests {
		if got := ForTier(tt.tier); got != tt.want {
			t.Errorf("ForTier(%q) = %+v, want %+v", tt.tier, got, tt.want)
		}
	}
}

// harness is one store under test together with its clock.
type harness struct {
	store Store
	now   func() time.Time    // the store's notion of now
	wait  func(time.Duration) // lets the store's clock move on
}

func TestMemory(t *testing.T) {
	runStoreSuite(t, func(t *testing.T) harness {
		clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		return harness{store: newMemoryWithClock(clock), now: clock.Now, wait: clock.Advance}
	})
}

func TestRedis(t *testing.T) {
	client := redisClient(t) // once, so an absent Redis skips (or fails) once
	runStoreSuite(t, func(t *testing.T) harness {
		store := NewRedis(client, testPrefix(t, client))
		// Redis reads its own clock, so the tests wait for real.
		return harness{store: store, now: time.Now, wait: time.Sleep}
	})
}

// runStoreSuite checks the behaviour every Store must have.
//
// The Redis store runs on a real clock, so tokens trickle back while a test
// runs. The limits below refill slowly enough that this never adds a whole
// token, and time-based checks allow for the time that passed.
func runStoreSuite(t *testing.T, newHarness func(t *testing.T) harness) {
	t.Run("burst then refuse", func(t *testing.T) {
		limits := []Limit{
			{PerMinute: 1, Burst: 1},
			{PerMinute: 60, Burst: 3},
			ForTier("free"),
			ForTier("starter"),
			ForTier("professional"),
		}
		for _, l := range limits {
			t.Run(fmt.Sprintf("%d per min burst %d", l.PerMinute, l.Burst), func(t *testing.T) {
				h := newHarness(t)
				perToken := time.Minute / time.Duration(l.PerMinute)
				start := time.Now()
				for i := range l.Burst {
					res := take(t, h.store, "k", l)
					if !res.Allowed {
						t.Fatalf("request %d of %d refused: %+v", i+1, l.Burst, res)
					}
					if want := l.Burst - 1 - i; res.Remaining != want {
						t.Fatalf("request %d: Remaining = %d, want %d", i+1, res.Remaining, want)
					}
					if res.Limit != l.PerMinute || res.RetryAfter != 0 {
						t.Fatalf("request %d: Limit = %d, RetryAfter = %v; want %d, 0", i+1, res.Limit, res.RetryAfter, l.PerMinute)
					}
					// i+1 tokens are missing, each takes perToken to come back.
					checkDuration(t, "Reset - now", res.Reset.Sub(h.now()), time.Duration(i+1)*perToken, time.Since(start))
				}

				res := take(t, h.store, "k", l)
				if res.Allowed || res.Remaining != 0 {
					t.Fatalf("request %d: Allowed = %v, Remaining = %d; want false, 0", l.Burst+1, res.Allowed, res.Remaining)
				}
				checkDuration(t, "RetryAfter", res.RetryAfter, perToken, time.Since(start))
				if !res.Reset.After(h.now()) {
					t.Errorf("Reset %v is not in the future", res.Reset)
				}
				checkDuration(t, "Reset - now", res.Reset.Sub(h.now()), time.Duration(l.Burst)*perToken, time.Since(start))
			})
		}
	})

	t.Run("refill", func(t *testing.T) {
		h := newHarness(t)
		l := Limit{PerMinute: 600, Burst: 5} // 10 tokens per second
		takeN(t, h.store, "k", l, 5)
		if res := take(t, h.store, "k", l); res.Allowed {
			t.Fatalf("request after the burst allowed: %+v", res)
		}

		h.wait(250 * time.Millisecond) // 2.5 tokens
		if got := countAllowed(t, h.store, "k", l, 3); got != 2 {
			t.Fatalf("after 250ms at 10/s: %d of 3 requests allowed, want 2", got)
		}

		res := take(t, h.store, "k", l)
		if res.Allowed {
			t.Fatalf("request allowed with no tokens: %+v", res)
		}
		h.wait(res.RetryAfter)
		if res := take(t, h.store, "k", l); !res.Allowed {
			t.Fatalf("request refused after waiting RetryAfter: %+v", res)
		}
	})

	t.Run("refill stops at burst", func(t *testing.T) {
		h := newHarness(t)
		l := Limit{PerMinute: 600, Burst: 2}
		takeN(t, h.store, "k", l, 2)
		h.wait(500 * time.Millisecond) // 5 tokens' worth, but the bucket holds 2
		if got := countAllowed(t, h.store, "k", l, 3); got != 2 {
			t.Fatalf("after a long wait: %d of 3 requests allowed, want burst 2", got)
		}
	})

	t.Run("separate keys", func(t *testing.T) {
		h := newHarness(t)
		l := Limit{PerMinute: 1, Burst: 2}
		takeN(t, h.store, "a", l, 2)
		if res := take(t, h.store, "a", l); res.Allowed {
			t.Fatalf("key a: request after the burst allowed: %+v", res)
		}
		res := take(t, h.store, "b", l)
		if !res.Allowed || res.Remaining != 1 {
			t.Fatalf("key b: Allowed = %v, Remaining = %d; want true, 1 (own budget)", res.Allowed, res.Remaining)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		h := newHarness(t)
		l := Limit{PerMinute: 1, Burst: 20}
		var allowed atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 50 {
			wg.Go(func() {
				<-start
				res, err := h.store.Take(t.Context(), "k", l)
				if err != nil {
					t.Errorf("Take: %v", err)
					return
				}
				if res.Allowed {
					allowed.Add(1)
				}
			})
		}
		close(start) // release all goroutines at once
		wg.Wait()
		if got := allowed.Load(); got != 20 {
			t.Fatalf("50 concurrent requests with burst 20: %d allowed, want 20", got)
		}
	})

	t.Run("invalid limit", func(t *testing.T) {
		h := newHarness(t)
		for _, l := range []Limit{{PerMinute: 0, Burst: 10}, {PerMinute: 60, Burst: 0}, {PerMinute: -1, Burst: -1}} {
			if _, err := h.store.Take(t.Context(), "k", l); err == nil {
				t.Errorf("Take with %+v: no error", l)
			}
		}
	})
}

// TestRedisSharedBudget checks that two stores on separate connections (as in
// two server instances) share one budget when they share a prefix.
func TestRedisSharedBudget(t *testing.T) {
	client1, client2 := redisClient(t), redisClient(t)
	prefix := testPrefix(t, client1)
	stores := []Store{NewRedis(client1, prefix), NewRedis(client2, prefix)}
	l := Limit{PerMinute: 1, Burst: 4}
	for i := range 6 {
		res := take(t, stores[i%2], "k", l)
		wantAllowed, wantRemaining := i < 4, max(3-i, 0)
		if res.Allowed != wantAllowed || res.Remaining != wantRemaining {
			t.Fatalf("request %d (store %d): Allowed = %v, Remaining = %d; want %v, %d",
				i+1, i%2, res.Allowed, res.Remaining, wantAllowed, wantRemaining)
		}
	}

	other := NewRedis(client1, testPrefix(t, client1))
	if res := take(t, other, "k", l); !res.Allowed {
		t.Fatalf("store with another prefix shares the budget: %+v", res)
	}
}

// TestRedisExpiresIdleBuckets checks that a bucket's key expires once it
// would be full again, so idle keys do not pile up in Redis.
func TestRedisExpiresIdleBuckets(t *testing.T) {
	client := redisClient(t)
	prefix := testPrefix(t, client)
	take(t, NewRedis(client, prefix), "k", Limit{PerMinute: 60, Burst: 100})
	ttl, err := client.PTTL(t.Context(), prefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	// One token missing at one token per second.
	if ttl <= 0 || ttl > time.Second {
		t.Fatalf("PTTL = %v, want in (0, 1s]", ttl)
	}
}

func TestMemorySweepsFullBuckets(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	m := newMemoryWithClock(clock)
	ctx := t.Context()
	for i := range 100 {
		if _, err := m.Take(ctx, fmt.Sprintf("idle-%d", i), Limit{PerMinute: 60, Burst: 2}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // three tokens at one per minute: full again after 3 minutes
		if _, err := m.Take(ctx, "busy", Limit{PerMinute: 1, Burst: 5}); err != nil {
			t.Fatal(err)
		}
	}

	clock.Advance(sweepEvery)
	if _, err := m.Take(ctx, "other", Limit{PerMinute: 60, Burst: 2}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.buckets) != 2 || m.buckets["busy"] == nil || m.buckets["other"] == nil {
		t.Fatalf("after a sweep %d buckets remain, want only busy and other", len(m.buckets))
	}
}

func BenchmarkMemoryTake(b *testing.B) {
	benchmarkTake(b, NewMemory())
}

func BenchmarkRedisTake(b *testing.B) {
	client := redisClient(b)
	benchmarkTake(b, NewRedis(client, testPrefix(b, client)))
}

func benchmarkTake(b *testing.B, s Store) {
	ctx := b.Context()
	l := ForTier("enterprise")
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("company-%d", i)
	}
	i := 0
	for b.Loop() {
		if _, err := s.Take(ctx, keys[i%len(keys)], l); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// take takes one token and fails the test on error.
func take(t *testing.T, s Store, key string, l Limit) Result {
	t.Helper()
	res, err := s.Take(t.Context(), key, l)
	if err != nil {
		t.Fatalf("Take(%q): %v", key, err)
	}
	return res
}

// takeN takes n tokens and fails the test unless all are allowed.
func takeN(t *testing.T, s Store, key string, l Limit, n int) {
	t.Helper()
	if got := countAllowed(t, s, key, l, n); got != n {
		t.Fatalf("%d of %d requests allowed, want all", got, n)
	}
}

// countAllowed makes n requests and returns how many were allowed.
func countAllowed(t *testing.T, s Store, key string, l Limit, n int) int {
	t.Helper()
	allowed := 0
	for range n {
		if take(t, s, key, l).Allowed {
			allowed++
		}
	}
	return allowed
}

// checkDuration checks got against want, allowing got to be smaller by up to
// drift (tokens that came back while the test ran) and a few milliseconds
// either way (Redis counts whole milliseconds).
func checkDuration(t *testing.T, what string, got, want, drift time.Duration) {
	t.Helper()
	const slack = 5 * time.Millisecond
	if got > want+slack || got < want-drift-slack {
		t.Fatalf("%s = %v, want %v (-%v)", what, got, want, drift)
	}
}

// fakeClock is a clock that only moves when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newMemoryWithClock returns a Memory store that reads the time from clock.
func newMemoryWithClock(clock *fakeClock) *Memory {
	m := NewMemory()
	m.now = clock.Now
	return m
}

// redisClient connects to REDIS_URL (default redis://127.0.0.1:6379/0). When
// Redis is unreachable the test is skipped, or fails when CI is "true", so
// that CI cannot pass without having tested the Redis store.
func redisClient(tb testing.TB) *redis.Client {
	tb.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("REDIS_URL %q: %v", url, err)
	}
	client := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		if os.Getenv("CI") == "true" {
			tb.Fatalf("Redis at %s is unreachable and CI=true requires it: %v", url, err)
		}
		tb.Skipf("Redis at %s is unreachable, skipping (start Redis or set REDIS_URL): %v", url, err)
	}
	tb.Cleanup(func() { client.Close() })
	return client
}

// testPrefix returns a key prefix unique to this test and run, so parallel
// runs against one Redis do not collide. Its keys are deleted afterwards:
// they would expire anyway, but this keeps a shared Redis tidy.
func testPrefix(tb testing.TB, client *redis.Client) string {
	prefix := fmt.Sprintf("konvoj:test:ratelimit:%d:%d:%s:", os.Getpid(), time.Now().UnixNano(), tb.Name())
	// Registered after redisClient's Close, so it runs before it.
	tb.Cleanup(func() {
		ctx := context.Background() // the test's context is already canceled
		iter := client.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
	})
	return prefix
}
