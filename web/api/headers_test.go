package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestAPIAnswersAreNotStored: every answer of the API, a driver's record
// with its personal fields as much as an error, tells caches not to keep it
// (Cache-Control: no-store) and browsers not to guess its type (nosniff),
// as the pages do (docs/security.md).
func TestAPIAnswersAreNotStored(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	drv := env.As(company, auth.RoleDriver, "jan@acme.test")
	other := env.Driver(company, fixtures.Email("eva@acme.test"))

	answers := map[string]*webtest.Response{
		"a driver's record": hr.Get("/api/v0/drivers/" + driver.String()).Expect(http.StatusOK),
		"a driver's own":    drv.Get("/api/v0/drivers/" + driver.String()).Expect(http.StatusOK),
		"the drivers list":  hr.Get("/api/v0/drivers").Expect(http.StatusOK),
		"a created driver": hr.Post("/api/v0/drivers", map[string]any{
			"first_name": "Petr", "last_name": "Malý", "email": "petr@acme.test"}).Expect(http.StatusCreated),
		"401":              env.Anonymous().Get("/api/v0/drivers"),
		"403":              drv.Get("/api/v0/drivers/" + other.String()),
		"404":              hr.Get("/api/v0/drivers/" + uuid.NewString()),
		"422":              hr.Post("/api/v0/drivers", map[string]any{}),
		"an unknown route": hr.Get("/api/v0/no-such-thing"),
	}
	for name, res := range answers {
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s (%d): Cache-Control %q, want no-store", name, res.Status, got)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s (%d): X-Content-Type-Options %q, want nosniff", name, res.Status, got)
		}
	}
	for _, want := range []struct {
		name   string
		status int
	}{{"401", 401}, {"403", 403}, {"404", 404}, {"422", 422}, {"an unknown route", 404}} {
		if s := answers[want.name].Status; s != want.status {
			t.Errorf("%s: status %d", want.name, s)
		}
	}
}

// TestJSONBodyOverTheCap: a JSON body over 1 MiB (web.MaxBodyBytes, the
// cap of every body that is not an upload) is 413 PayloadTooLarge, from
// the server's body reader.
func TestJSONBodyOverTheCap(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	big := `{"first_name":"Jan","last_name":"Novák","email":"jan@acme.test","note":"` + strings.Repeat("x", 2<<20) + `"}`
	hr.Post("/api/v0/drivers", big).ExpectError(http.StatusRequestEntityTooLarge, "PayloadTooLarge")
	hr.Get("/api/v0/drivers").Expect(http.StatusOK)
}
