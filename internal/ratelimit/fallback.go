package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Fallback is a shared Store (Redis) with the instance's in-memory buckets
// behind it (docs/rate-limits.md): when the shared store fails, requests are
// limited from memory instead of not at all, the instance reports itself
// degraded, and every fallback is counted. While degraded, the shared store
// is tried again at most once per Retry, so an outage does not slow every
// request down; once it answers, limits are shared again.
type Fallback struct {
	Shared Store
	Local  *Memory
	// Retry is how long the shared store rests after a failure.
	Retry time.Duration
	// Timeout bounds one call to the shared store.
	Timeout time.Duration
	Log     *slog.Logger

	fallbacks atomic.Uint64
	mu        sync.Mutex
	downUntil time.Time
	degraded  atomic.Bool
}

// NewFallback returns shared with in-memory buckets behind it.
func NewFallback(shared Store, log *slog.Logger) *Fallback {
	if log == nil {
		log = slog.Default()
	}
	return &Fallback{Shared: shared, Local: NewMemory(), Retry: time.Second, Timeout: 250 * time.Millisecond, Log: log}
}

// Take takes the token from the shared store, or from memory while the
// shared store is failing.
func (f *Fallback) Take(ctx context.Context, key string, l Limit) (Result, error) {
	f.mu.Lock()
	resting := time.Now().Before(f.downUntil)
	f.mu.Unlock()
	if !resting {
		tctx, cancel := context.WithTimeout(ctx, f.Timeout)
		res, err := f.Shared.Take(tctx, key, l)
		cancel()
		if err == nil {
			if f.degraded.Swap(false) {
				f.Log.Info("rate limiter: shared store back, limits shared again")
			}
			return res, nil
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		f.mu.Lock()
		f.downUntil = time.Now().Add(f.Retry)
		f.mu.Unlock()
		if !f.degraded.Swap(true) {
			f.Log.Warn("rate limiter: shared store unreachable, limiting from memory", slog.Any("error", err))
		}
	}
	f.fallbacks.Add(1)
	return f.Local.Take(ctx, key, l)
}

// Degraded reports whether the last attempt at the shared store failed
// (the instance limits from memory): /readyz says "degraded".
func (f *Fallback) Degraded() bool { return f.degraded.Load() }

// Fallbacks counts the tokens taken from memory because the shared store
// was failing (the konvoj_ratelimit_fallbacks_total metric).
func (f *Fallback) Fallbacks() uint64 { return f.fallbacks.Load() }
