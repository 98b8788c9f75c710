package pages_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/web/webtest"
)

// A person clicking through pages draws on their own page budget, never on
// the company's API bucket, with the in-memory and the Redis store alike.
func TestPagesHaveTheirOwnRateLimit(t *testing.T) {
	stores := map[string]func(t *testing.T) ratelimit.Store{
		"memory": func(*testing.T) ratelimit.Store { return ratelimit.NewMemory() },
		"redis":  func(t *testing.T) ratelimit.Store { return webtest.RedisLimiter(t) },
	}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			env := devEnv(t, webtest.WithLimiter(store(t)))
			// The free tier's API bucket (burst 100, 60 a minute) is smaller
			// than the clicking below: sharing it would end in a 429.
			company := env.Company("Acme", "free")
			env.Driver(company, fixtures.Name("Jan", "Novák"))
			api := env.As(company, auth.RoleAdmin)
			apiRemaining := func() int {
				t.Helper()
				res := api.Get("/api/v0/drivers").Expect(http.StatusOK)
				n, err := strconv.Atoi(res.Header.Get("X-RateLimit-Remaining"))
				if err != nil {
					t.Fatalf("API X-RateLimit-Remaining %q", res.Header.Get("X-RateLimit-Remaining"))
				}
				return n
			}

			hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
			before := apiRemaining()
			start := time.Now()
			paths := []string{"/", "/drivers", "/drivers?search=nov", "/audit"}
			for i := 0; i < 150; i++ {
				path := paths[i%len(paths)]
				if path == "/drivers?search=nov" {
					hr.htmx("driver-results") // live search fetches the results alone
				}
				res := hr.get(path)
				hr.plain()
				if res.Status != http.StatusOK {
					t.Fatalf("page request %d (%s): status %d after %s", i+1, path, res.Status, time.Since(start))
				}
				if i == 0 && res.Header.Get("X-RateLimit-Limit") != "600" {
					t.Errorf("page X-RateLimit-Limit %q, want the page limit 600", res.Header.Get("X-RateLimit-Limit"))
				}
			}
			if took := time.Since(start); took > time.Minute {
				t.Fatalf("150 page requests took %s, more than a minute", took)
			}
			// The company's bucket refills one token a second: after a
			// second the API call finds at least as many tokens as before,
			// unless the pages took some.
			time.Sleep(time.Until(start.Add(1100 * time.Millisecond)))
			if after := apiRemaining(); after < before {
				t.Errorf("API X-RateLimit-Remaining %d before the page clicks, %d after: pages spent the company's budget", before, after)
			}

			// Still bounded: a script hammering pages is refused once the
			// burst and what refilled meanwhile (10 a second) are spent.
			var refused *page
			hammer, accepted := time.Now(), 0
			for i := 0; i < 5000 && refused == nil; i++ {
				res := hr.get("/drivers")
				if res.Status == http.StatusTooManyRequests {
					refused = &res
					break
				}
				res.expect(t, http.StatusOK)
				accepted++
			}
			if refused == nil {
				t.Fatalf("no 429 within %d page requests", accepted)
			}
			limit := ratelimit.ForPages()
			if most := limit.Burst + int(time.Since(hammer).Seconds()*float64(limit.PerMinute)/60) + 2; accepted > most {
				t.Errorf("%d page requests accepted in %s, more than the %d the page limit allows", accepted, time.Since(hammer), most)
			}
			if refused.Header.Get("Retry-After") == "" {
				t.Errorf("page 429 without Retry-After: %v", refused.Header)
			}
			// The API is not locked out by the pages, nor is another person.
			api.Get("/api/v0/drivers").Expect(http.StatusOK)
			signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en").get("/drivers").expect(t, http.StatusOK)
		})
	}
}
