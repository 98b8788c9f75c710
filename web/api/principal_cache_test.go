package api_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// A driver caller's link to its driver record follows the record at once,
// although the resolved caller is reused for a few seconds
// (tenants.PrincipalTTL): created with the caller's e-mail, the record is
// the caller's on the next request; given another e-mail, or deleted, it
// is no longer.
func TestDriverLinkFollowsTheRecord(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	me := env.As(company, auth.RoleDriver, "jana@example.test")

	// Before there is a record with the e-mail: no driver is the caller's.
	other := env.Driver(company)
	me.Get("/api/v0/drivers/"+other.String()).ExpectError(http.StatusForbidden, "AccessDenied")

	// HR creates the record through the API: the next request is linked.
	var created struct{ ID string }
	hr.Post("/api/v0/drivers", map[string]any{"first_name": "Jana", "last_name": "Dvořák", "email": "Jana@Example.test"}).
		Expect(http.StatusCreated).Decode(&created)
	me.Get("/api/v0/drivers/" + created.ID).Expect(http.StatusOK)

	// Another e-mail: the link is gone on the next request.
	hr.Put("/api/v0/drivers/"+created.ID, map[string]any{"email": "jana.dvorak@example.test"}).Expect(http.StatusOK)
	me.Get("/api/v0/drivers/"+created.ID).ExpectError(http.StatusForbidden, "AccessDenied")

	// Back to the caller's e-mail: linked again; deleted: gone.
	hr.Put("/api/v0/drivers/"+created.ID, map[string]any{"email": "jana@example.test"}).Expect(http.StatusOK)
	me.Get("/api/v0/drivers/" + created.ID).Expect(http.StatusOK)
	hr.Delete("/api/v0/drivers/" + created.ID).Expect(http.StatusNoContent)
	me.Get("/api/v0/drivers/"+created.ID).ExpectError(http.StatusNotFound, "NotFound")

	// A record inserted outside the API (a fixture, as an operator's tool
	// would through the drivers store) links as well once announced.
	again := env.Driver(company, fixtures.Email("jana@example.test"))
	me.Get("/api/v0/drivers/" + again.String()).Expect(http.StatusOK)
}
