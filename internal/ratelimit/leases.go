package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Leases count things that stay open (live-update streams) per key, with a
// ceiling (docs/live-updates.md, "Limits"). A holder takes a lease for ttl
// and renews it while it is open; a holder that vanished (its instance
// died) stops counting when its lease runs out, so a crash frees its
// places within ttl.
type Leases interface {
	// Acquire takes a place under key for holder if fewer than max are
	// taken; false when the key is full.
	Acquire(ctx context.Context, key, holder string, max int, ttl time.Duration) (bool, error)
	// Renew extends holder's lease.
	Renew(ctx context.Context, key, holder string, ttl time.Duration) error
	// Release gives the place back.
	Release(ctx context.Context, key, holder string) error
}

// acquireScript takes a place atomically: a sorted set of holders scored by
// the end of their lease (Redis's clock), the ended ones removed first.
// KEYS[1] the set; ARGV[1] holder, ARGV[2] max, ARGV[3] ttl in ms.
var acquireScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`)

// renewScript extends a lease that is still held. KEYS[1] the set; ARGV[1]
// holder, ARGV[2] ttl in ms.
var renewScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]))
return 1
`)

// Acquire takes a place in Redis, shared by every instance.
func (r *Redis) Acquire(ctx context.Context, key, holder string, max int, ttl time.Duration) (bool, error) {
	n, err := acquireScript.Run(ctx, r.client, []string{r.prefix + key}, holder, max, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", key, err)
	}
	return n == 1, nil
}

// Renew extends the lease in Redis.
func (r *Redis) Renew(ctx context.Context, key, holder string, ttl time.Duration) error {
	if err := renewScript.Run(ctx, r.client, []string{r.prefix + key}, holder, ttl.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("renew lease %s: %w", key, err)
	}
	return nil
}

// Release gives the place back in Redis.
func (r *Redis) Release(ctx context.Context, key, holder string) error {
	if err := r.client.ZRem(ctx, r.prefix+key, holder).Err(); err != nil {
		return fmt.Errorf("release lease %s: %w", key, err)
	}
	return nil
}

// MemoryLeases are Leases of this process only.
type MemoryLeases struct {
	mu   sync.Mutex
	keys map[string]map[string]time.Time
}

// NewMemoryLeases returns empty in-process leases.
func NewMemoryLeases() *MemoryLeases { return &MemoryLeases{keys: map[string]map[string]time.Time{}} }

// Acquire takes a place in this process.
func (m *MemoryLeases) Acquire(_ context.Context, key, holder string, max int, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	held := m.keys[key]
	if held == nil {
		held = map[string]time.Time{}
		m.keys[key] = held
	}
	for h, until := range held {
		if !now.Before(until) {
			delete(held, h)
		}
	}
	if _, ok := held[holder]; !ok && len(held) >= max {
		return false, nil
	}
	held[holder] = now.Add(ttl)
	return true, nil
}

// Renew extends the lease in this process.
func (m *MemoryLeases) Renew(_ context.Context, key, holder string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.keys[key][holder]; ok {
		m.keys[key][holder] = time.Now().Add(ttl)
	}
	return nil
}

// Release gives the place back in this process.
func (m *MemoryLeases) Release(_ context.Context, key, holder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held := m.keys[key]; held != nil {
		delete(held, holder)
		if len(held) == 0 {
			delete(m.keys, key)
		}
	}
	return nil
}

// Leases of the fallback: the shared store's, or this process's while the
// shared store fails (then the ceilings hold per instance).
func (f *Fallback) leases() (Leases, bool) {
	l, ok := f.Shared.(Leases)
	return l, ok
}

// fallbackLeases is the fallback's in-process leases (one per process: the
// Fallback is built once).
var fallbackLeases = NewMemoryLeases()

// Acquire takes the place in the shared store, or in memory while it fails.
func (f *Fallback) Acquire(ctx context.Context, key, holder string, max int, ttl time.Duration) (bool, error) {
	if l, ok := f.leases(); ok && !f.Degraded() {
		tctx, cancel := context.WithTimeout(ctx, f.Timeout)
		defer cancel()
		if ok, err := l.Acquire(tctx, key, holder, max, ttl); err == nil {
			return ok, nil
		}
	}
	return fallbackLeases.Acquire(ctx, key, holder, max, ttl)
}

// Renew extends the lease where it may be (both stores; a miss is harmless).
func (f *Fallback) Renew(ctx context.Context, key, holder string, ttl time.Duration) error {
	if l, ok := f.leases(); ok {
		tctx, cancel := context.WithTimeout(ctx, f.Timeout)
		_ = l.Renew(tctx, key, holder, ttl)
		cancel()
	}
	return fallbackLeases.Renew(ctx, key, holder, ttl)
}

// Release gives the place back in both stores.
func (f *Fallback) Release(ctx context.Context, key, holder string) error {
	if l, ok := f.leases(); ok {
		tctx, cancel := context.WithTimeout(ctx, f.Timeout)
		_ = l.Release(tctx, key, holder)
		cancel()
	}
	return fallbackLeases.Release(ctx, key, holder)
}
