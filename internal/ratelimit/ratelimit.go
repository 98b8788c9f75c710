// Package ratelimit limits requests per key with token buckets (docs/rate-limits.md).
//
// A bucket holds at most Burst tokens and refills at PerMinute/60 tokens per
// second; each request takes one token and is refused when none is left.
// Memory keeps buckets in one process; Redis keeps them in Redis so that
// several server instances share one budget per key.
package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Limit is a token bucket's shape.
type Limit struct {
	PerMinute int // refill rate: PerMinute/60 tokens per second
	Burst     int // capacity: the most requests allowed in a row
}

// tierLimits are the limits of the subscription tiers (docs/rate-limits.md).
var tierLimits = map[string]Limit{
	"free":         {PerMinute: 60, Burst: 100},
	"starter":      {PerMinute: 120, Burst: 200},
	"professional": {PerMinute: 180, Burst: 300},
	"business":     {PerMinute: 240, Burst: 400},
	"enterprise":   {PerMinute: 300, Burst: 500},
}

// ForTier returns the limit of a subscription tier ("free", "starter",
// "professional", "business", "enterprise"). An unknown tier gets the free
// limit, so a typo or a new tier never grants more than the smallest budget.
func ForTier(tier string) Limit {
	if l, ok := tierLimits[tier]; ok {
		return l
	}
	return tierLimits["free"]
}

// pageLimit is one signed-in person's budget for web pages (docs/: "Rate
// limits"). Pages draw on it instead of the company's API bucket, so people
// clicking through pages never use up the integrations' budget, and the API
// never locks people out of the pages. A burst of 200 covers fast clicking,
// several tabs and htmx live search (a request per pause in typing); 600 a
// minute (10 a second) sustained is more than a person can click and still
// bounds a runaway script.
var pageLimit = Limit{PerMinute: 600, Burst: 200}

// ForPages returns the limit of one signed-in person's page requests.
func ForPages() Limit { return pageLimit }

// ForDriver is one driver token's own bucket: a quarter of its company's
// capacity and rate (at least one), so one driver cannot lock its
// company's staff out (docs/rate-limits.md).
func ForDriver(company Limit) Limit {
	return Limit{PerMinute: max(1, company.PerMinute/4), Burst: max(1, company.Burst/4)}
}

// validate rejects limits that would divide by zero or never allow anything.
func (l Limit) validate() error {
	if l.PerMinute < 1 || l.Burst < 1 {
		return fmt.Errorf("invalid limit %d/min burst %d", l.PerMinute, l.Burst)
	}
	return nil
}

// Result is the outcome of taking one token.
type Result struct {
	Allowed    bool
	Limit      int           // requests per minute (for X-RateLimit-Limit)
	Remaining  int           // whole tokens left after this request (>= 0)
	Reset      time.Time     // when the bucket will be full again (for X-RateLimit-Reset, Unix seconds)
	RetryAfter time.Duration // when refused: time until one token is back (callers round up to whole seconds, min 1); zero when allowed
}

// Store takes one token from the bucket named key.
type Store interface {
	Take(ctx context.Context, key string, l Limit) (Result, error)
}

// ceilDiv returns a/b rounded up, for a >= 0 and b > 0. Waiting times are
// rounded up so that a caller who waits that long really finds the token.
func ceilDiv(a, b int64) int64 {
	return (a + b - 1) / b
}
