package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/fixtures"
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

// TestDocumentRulesByChoices: "required for" is a choice of all drivers,
// non-EU drivers and one group per tag the company's drivers have; a
// choice is saved as the rule's group.
func TestDocumentRulesByChoices(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	env.Driver(company, fixtures.Email("adr@acme.test"), func(s *fixtures.DriverSpec) { s.Tags = []string{"adr", "international"} })
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")

	hr.get("/document-rules").expect(t, http.StatusOK).
		contains(t, `<select id="rule-required_for-adr_certificate" name="required_for.adr_certificate"`,
			`<option value="all" selected>All drivers</option>`, `<option value="non_eu">Non-EU drivers</option>`,
			`<option value="tag:adr">Drivers tagged “adr”</option>`, `<option value="tag:international">Drivers tagged “international”</option>`).
		lacks(t, `type="text" id="rule-required_for`, "tag:name")
	hr.post("/document-rules", url.Values{"required.adr_certificate": {"false", "true"}, "required_for.adr_certificate": {"tag:adr"},
		"required_for.work_permit": {"non_eu"}}).expect(t, http.StatusSeeOther)
	rules, err := documents.LoadRules(t.Context(), env.DB, company)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		switch {
		case r.DocumentType == "adr_certificate" && (!r.Required || r.RequiredFor != "tag:adr"):
			t.Errorf("ADR certificate: %+v, want required for tag:adr", r)
		case r.DocumentType == "work_permit" && r.RequiredFor != "non_eu":
			t.Errorf("work permit: %+v, want non_eu", r)
		}
	}
	hr.get("/document-rules").expect(t, http.StatusOK).contains(t, `<option value="tag:adr" selected>`, `<option value="non_eu" selected>`)
}

// TestReviewOffer: while no type's uploads are reviewed, the rules page
// and HR's home page offer to turn review on; the one button turns it on
// for every type, with an audit row per type, and the offer is gone.
func TestReviewOffer(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.get("/document-rules").expect(t, http.StatusOK).contains(t, `data-testid="review-offer"`, `name="return" value="/document-rules"`)
	hr.get("/").expect(t, http.StatusOK).contains(t, `data-testid="review-offer"`, `name="return" value="/"`)
	// Not for a dispatcher, who may not change the rules.
	signIn(t, env, company, auth.RoleDispatcher, "dita@acme.test", "en").get("/").expect(t, http.StatusOK).lacks(t, `data-testid="review-offer"`)

	res := hr.post("/document-rules/review", url.Values{"return": {"/"}}).expect(t, http.StatusSeeOther)
	if res.Header.Get("Location") != "/" {
		t.Errorf("after turning review on: %q", res.Header.Get("Location"))
	}
	hr.get("/").expect(t, http.StatusOK).contains(t, "now wait for review").lacks(t, `data-testid="review-offer"`)
	hr.get("/document-rules").expect(t, http.StatusOK).lacks(t, `data-testid="review-offer"`)
	rules, err := documents.LoadRules(t.Context(), env.DB, company)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !r.RequiresReview {
			t.Errorf("%s is not reviewed", r.DocumentType)
		}
	}
	var audited int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM audit_logs WHERE company_id = $1 AND entity_type = 'document_rule'
		AND new_values ->> 'requires_review' = 'true'`, company).Scan(&audited); err != nil || audited != len(rules) {
		t.Errorf("%d audit rows (%v), want one per type (%d)", audited, err, len(rules))
	}
	// A second press changes nothing and writes nothing.
	hr.post("/document-rules/review", nil).expect(t, http.StatusSeeOther)
	var again int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM audit_logs WHERE company_id = $1 AND entity_type = 'document_rule'`, company).Scan(&again); err != nil || again != audited {
		t.Errorf("a second press wrote %d audit rows", again-audited)
	}
}
