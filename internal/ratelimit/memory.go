package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// unitsPerToken is how Memory counts tokens: in units of 1/(60·10⁹) token, so
// that one nanosecond refills exactly PerMinute units. Integer units keep the
// refill exact; floats would drift and make boundaries flaky. The largest
// bucket, 500 tokens, is 3·10¹³ units, far inside int64.
const unitsPerToken = 60 * int64(time.Second)

// sweepEvery is how often Memory drops buckets that have refilled completely.
const sweepEvery = time.Minute

// Memory is a Store that keeps buckets in this process. It is safe for
// concurrent use. Use it when a single server instance serves all requests.
type Memory struct {
	now func() time.Time // the clock; tests replace it

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

// bucket is the state of one token bucket.
type bucket struct {
	units int64     // tokens left, in units (see unitsPerToken)
	at    time.Time // when units was last brought up to date
	full  time.Time // when the bucket will be full again if nobody takes
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{now: time.Now, buckets: make(map[string]*bucket)}
}

// Take takes one token from the bucket named key, creating a full bucket the
// first time the key is seen.
func (m *Memory) Take(_ context.Context, key string, l Limit) (Result, error) {
	if err := l.validate(); err != nil {
		return Result{}, fmt.Errorf("ratelimit take %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()

	now := m.now()
	m.sweep(now)

	capacity := int64(l.Burst) * unitsPerToken
	rate := int64(l.PerMinute) // units per nanosecond

	b, ok := m.buckets[key]
	if !ok {
		b = &bucket{units: capacity, at: now}
		m.buckets[key] = b
	}
	// Refill for the time since the last request. A clock that went
	// backwards refills nothing rather than taking tokens away.
	if elapsed := int64(now.Sub(b.at)); elapsed > 0 {
		if elapsed > capacity/rate {
			b.units = capacity // long idle; also avoids overflowing elapsed*rate
		} else {
			b.units += elapsed * rate
		}
		b.at = now
	}
	// Also clamps a bucket whose limit shrank (e.g. a tier downgrade).
	b.units = min(b.units, capacity)

	res := Result{Limit: l.PerMinute}
	if b.units >= unitsPerToken {
		b.units -= unitsPerToken
		res.Allowed = true
	} else {
		res.RetryAfter = time.Duration(ceilDiv(unitsPerToken-b.units, rate))
	}
	res.Remaining = int(b.units / unitsPerToken)
	b.full = now.Add(time.Duration(ceilDiv(capacity-b.units, rate)))
	res.Reset = b.full
	return res, nil
}

// sweep drops buckets that are full again, at most once per sweepEvery, so
// the map does not grow with every key ever seen. Dropping a full bucket
// loses nothing: a missing bucket is recreated full. Called with m.mu held.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepEvery {
		return
	}
	m.lastSweep = now
	for key, b := range m.buckets {
		if !now.Before(b.full) {
			delete(m.buckets, key)
		}
	}
}
