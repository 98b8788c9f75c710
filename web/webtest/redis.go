package webtest

import (
	"context"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/konvoj/konvoj/internal/ratelimit"
)

// RedisLimiter is a rate-limit store in the tests' Redis (REDIS_URL, else
// the local one), under a prefix of its own so tests do not share buckets.
func RedisLimiter(t testing.TB) *ratelimit.Redis {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer (make test starts one): %v", url, err)
	}
	return ratelimit.NewRedis(c, "konvoj-test:"+uuid.NewString()+":")
}
