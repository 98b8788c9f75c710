package api_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestStatementsOfADispute counts the SQL statements of a driver's dispute
// (docs/development.md, "A worked example: a dispute"): the penalty is
// loaded once, checked and handed on, so the request reads no row twice and
// stays within its budget.
func TestStatementsOfADispute(t *testing.T) {
	t.Parallel()
	st := &webtest.Statements{}
	env := webtest.New(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	mail := "jan.novak@example.test"
	driver := env.Driver(company, fixtures.Email(mail))
	me := env.As(company, auth.RoleDriver, mail)

	pen := hr.Post("/api/v0/drivers/"+driver.String()+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "1500", "incident_date": pragueDay(0), "description": "72 km/h in a 50 zone"}).Expect(http.StatusCreated).JSON()
	me.Get("/api/v0/drivers/" + driver.String()) // the caller's identity is cached: the dispute counts its own statements
	st.Take()
	me.Put("/api/v0/drivers/"+driver.String()+"/penalties/"+pen["id"].(string)+"/dispute", map[string]any{
		"dispute_reason": "The radar was not calibrated.",
		"evidence":       []map[string]string{{"type": "photo", "url": "https://cdn.example.test/sign.jpg"}}}).Expect(http.StatusOK)
	st.CheckStatements(t, "PUT …/dispute", 11)
}
