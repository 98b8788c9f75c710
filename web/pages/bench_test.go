package pages_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkDashboard is one signed-in page view: session cookie decoded,
// principal resolved from the database, company read, page rendered.
func BenchmarkDashboard(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	company := env.Company("Acme", "free")
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(company, auth.RoleHRManager, "h@acme.test")
	req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/", nil)
	for b.Loop() {
		res, err := br.c.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("GET /: %v %v", err, res)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}
