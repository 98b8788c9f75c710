package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
)

// TestDocumentRulesPage: the table shows every type's rule, a save goes
// through the service (audit included), and a refused value comes back in
// its row with the service's message.
func TestDocumentRulesPage(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")

	hr.get("/document-rules").expect(t, http.StatusOK).
		contains(t, "Document rules", `data-testid="rule-passport"`, `name="lead_days.passport" value="90"`,
			`name="lead_days.a1_eu" value="60"`, `name="lead_days.code_95" value="30"`)

	hr.post("/document-rules", url.Values{"lead_days.passport": {"120"}, "required.adr_certificate": {"false", "true"}}).
		expect(t, http.StatusSeeOther)
	hr.get("/document-rules").expect(t, http.StatusOK).
		contains(t, "Document rules saved.", `name="lead_days.passport" value="120"`)
	rules, err := documents.LoadRules(t.Context(), env.DB, company)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.DocumentType == "adr_certificate" && !r.Required {
			t.Error("the ticked ADR certificate is not required")
		}
	}

	hr.post("/document-rules", url.Values{"lead_days.code_95": {"-4"}, "lead_days.passport": {"60"}}).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="rule-error-code_95"`, "The lead days must be a whole number from 0 to 730.", `aria-invalid="true"`)
	// Nothing of the refused save is stored.
	hr.get("/document-rules").expect(t, http.StatusOK).contains(t, `name="lead_days.passport" value="120"`)

	// In Czech, the service's message is Czech.
	cs := signIn(t, env, company, auth.RoleAdmin, "admin@acme.test", "cs")
	cs.post("/document-rules", url.Values{"lead_days.code_95": {"abc"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, "Počet dní předem musí být celé číslo od 0 do 730.")

	// Not for a dispatcher.
	signIn(t, env, company, auth.RoleDispatcher, "dita@acme.test", "en").get("/document-rules").expect(t, http.StatusForbidden)
}
