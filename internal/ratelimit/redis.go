package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// takeScript takes one token atomically, so that concurrent requests from any
// number of server instances never spend the same token twice.
//
// The clock is Redis's TIME, not the caller's: instances with skewed clocks
// then agree on how much has refilled. (Calling TIME before a write needs
// effects replication, the default since Redis 5.)
//
// Tokens are counted in units of 1/60000 token, so that one millisecond
// refills exactly PerMinute units and all arithmetic is on whole numbers.
// Milliseconds (not microseconds) keep every stored number below 10^14, which
// Lua's number-to-string conversion writes back exactly.
//
// KEYS[1] is the bucket, a hash {u = units left, t = time of u in ms}.
// ARGV[1] is PerMinute, ARGV[2] is Burst.
// Returns {allowed 0/1, remaining tokens, reset in Unix ms, retry after in ms}.
var takeScript = redis.NewScript(`
local per_minute = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local unit = 60000
local capacity = burst * unit

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local state = redis.call('HMGET', KEYS[1], 'u', 't')
local units = tonumber(state[1])
local at = tonumber(state[2])
if units == nil or at == nil then
  -- a missing (or expired) bucket is a full one
  units = capacity
  at = now
end
-- Refill; a clock that went backwards refills nothing. math.min also clamps
-- a bucket whose limit shrank.
if now > at then
  units = units + (now - at) * per_minute
  at = now
end
units = math.min(units, capacity)

local allowed = 0
local retry = 0
if units >= unit then
  units = units - unit
  allowed = 1
else
  retry = math.ceil((unit - units) / per_minute)
end
local to_full = math.ceil((capacity - units) / per_minute)

redis.call('HSET', KEYS[1], 'u', units, 't', at)
-- Once full, the bucket is the same as a missing one: let it expire then.
redis.call('PEXPIRE', KEYS[1], math.max(to_full, 1))
return {allowed, math.floor(units / unit), now + to_full, retry}
`)

// Redis is a Store that keeps buckets in Redis, so that all server instances
// using the same Redis and prefix share one budget per key. Idle buckets
// expire on their own. Reset is on Redis's clock, so every instance reports
// the same value.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

// NewRedis returns a store that keeps the bucket of key at prefix+key.
// The prefix is used as is, e.g. "konvoj:ratelimit:".
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Take takes one token from the bucket named key, creating a full bucket the
// first time the key is seen.
func (r *Redis) Take(ctx context.Context, key string, l Limit) (Result, error) {
	if err := l.validate(); err != nil {
		return Result{}, fmt.Errorf("ratelimit take %s: %w", key, err)
	}
	// Run sends EVALSHA and falls back to EVAL when Redis lacks the script.
	v, err := takeScript.Run(ctx, r.client, []string{r.prefix + key}, l.PerMinute, l.Burst).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit take %s: %w", key, err)
	}
	if len(v) != 4 {
		return Result{}, fmt.Errorf("ratelimit take %s: script returned %d values, want 4", key, len(v))
	}
	return Result{
		Allowed:    v[0] == 1,
		Limit:      l.PerMinute,
		Remaining:  int(v[1]),
		Reset:      time.UnixMilli(v[2]),
		RetryAfter: time.Duration(v[3]) * time.Millisecond,
	}, nil
}
