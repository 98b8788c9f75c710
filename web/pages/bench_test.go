package pages_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
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

// BenchmarkDriversPages are the drivers pages of a company of 200 drivers
// (14 documents each): the list (full page; the htmx results alone, as
// live search fetches them) and a driver's page with its documents.
func BenchmarkDriversPages(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	company := env.Company("Acme", "free")
	var id string
	for i := 0; i < 200; i++ {
		id = env.Driver(company, fixtures.Name("Jan", fmt.Sprintf("Novák %03d", i))).String()
	}
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(company, auth.RoleHRManager, "h@acme.test")
	for _, bc := range []struct {
		name, path string
		htmx       bool
	}{
		{"list", "/drivers", false},
		{"search_results", "/drivers?search=novak+15", true},
		{"driver", "/drivers/" + id, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bc.path, nil)
			if bc.htmx {
				req.Header.Set("HX-Request", "true")
				req.Header.Set("HX-Target", "driver-results")
			}
			for b.Loop() {
				res, err := br.c.Do(req)
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %v %v", bc.path, err, res)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
}
