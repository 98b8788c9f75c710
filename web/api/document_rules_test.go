package api_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

func rulesPath(company uuid.UUID) string {
	return "/api/v0/companies/" + company.String() + "/document-rules"
}

// rulesByType reads the rules answer keyed by document type.
func rulesByType(t *testing.T, res *webtest.Response) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range res.Expect(http.StatusOK).JSON()["data"].([]any) {
		r := r.(map[string]any)
		out[r["document_type"].(string)] = r
	}
	return out
}

func TestDocumentRulesDefaultsAndPartialUpdate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)

	rules := rulesByType(t, hr.Get(rulesPath(company)))
	if len(rules) != 14 {
		t.Fatalf("%d rules, want 14", len(rules))
	}
	for typ, want := range map[string]struct {
		required bool
		lead     float64
	}{
		"passport": {true, 90}, "visa_biometrics": {false, 90}, "residence_permit": {false, 90}, "work_permit": {false, 90},
		"a1_eu": {false, 60}, "a1_switzerland": {false, 60}, "declaration": {false, 30}, "drivers_license": {true, 30},
		"tachograph_card": {true, 30}, "code_95": {true, 30}, "medical_examination": {true, 30}, "adr_certificate": {false, 30},
	} {
		r := rules[typ]
		if r["required"] != want.required || r["lead_days"] != want.lead || r["required_for"] != "all" || r["requires_review"] != false {
			t.Errorf("default rule of %s: %v", typ, r)
		}
	}

	// Only the listed fields change; the answer is every rule.
	rules = rulesByType(t, hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "a1_eu", "required": true, "required_for": "non_eu"},
		map[string]any{"document_type": "passport", "lead_days": 120},
	}}))
	if r := rules["a1_eu"]; r["required"] != true || r["required_for"] != "non_eu" || r["lead_days"] != float64(60) {
		t.Errorf("a1_eu after update: %v", r)
	}
	if r := rules["passport"]; r["required"] != true || r["lead_days"] != float64(120) {
		t.Errorf("passport after update: %v", r)
	}
	if again := rulesByType(t, hr.Get(rulesPath(company))); again["passport"]["lead_days"] != float64(120) {
		t.Errorf("stored passport rule: %v", again["passport"])
	}
	logs := hr.Get("/api/v0/audit-logs?entity_type=document_rule").Expect(http.StatusOK).JSON()
	if logs["total"] != float64(2) {
		t.Fatalf("audit rows %v, want 2 (one per changed type)", logs["total"])
	}
	for _, l := range logs["data"].([]any) {
		l := l.(map[string]any)
		nv := l["new_values"].(map[string]any)
		if nv["document_type"] == "passport" && (nv["lead_days"] != float64(120) || l["old_values"].(map[string]any)["lead_days"] != float64(90) || nv["required"] != nil) {
			t.Errorf("passport audit row: %v", l)
		}
	}
	// An update that changes nothing writes no audit row.
	hr.Put(rulesPath(company), map[string]any{"rules": []any{map[string]any{"document_type": "passport", "lead_days": 120}}}).Expect(http.StatusOK)
	if n := hr.Get("/api/v0/audit-logs?entity_type=document_rule").Expect(http.StatusOK).JSON()["total"]; n != float64(2) {
		t.Errorf("a no-op update wrote audit rows: %v", n)
	}
	// Another company keeps the defaults.
	other := env.Company("Other", "free")
	if r := rulesByType(t, env.As(other, auth.RoleAdmin).Get(rulesPath(other)))["passport"]; r["lead_days"] != float64(90) {
		t.Errorf("another company's passport rule: %v", r)
	}
}

func TestDocumentRulesValidation(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	before := string(admin.Get(rulesPath(company)).Expect(http.StatusOK).Body)
	for _, tt := range []struct{ name, body, field string }{
		{"rules missing", `{}`, "rules"},
		{"rules empty", `{"rules": []}`, "rules"},
		{"negative lead days", `{"rules": [{"document_type": "passport", "lead_days": -1}]}`, "rules.0.lead_days"},
		{"lead days too many", `{"rules": [{"document_type": "code_95"}, {"document_type": "passport", "lead_days": 731}]}`, "rules.1.lead_days"},
		{"lead days not whole", `{"rules": [{"document_type": "passport", "lead_days": 1.5}]}`, "rules.0.lead_days"},
		{"lead days a string", `{"rules": [{"document_type": "passport", "lead_days": "ten"}]}`, "rules.0.lead_days"},
		{"unknown type", `{"rules": [{"document_type": "horse_licence", "required": true}]}`, "rules.0.document_type"},
		{"type missing", `{"rules": [{"required": true}]}`, "rules.0.document_type"},
		{"type twice", `{"rules": [{"document_type": "passport"}, {"document_type": "passport"}]}`, "rules.1.document_type"},
		{"required not a boolean", `{"rules": [{"document_type": "passport", "required": "yes"}]}`, "rules.0.required"},
		{"requires_review null", `{"rules": [{"document_type": "passport", "requires_review": null}]}`, "rules.0.requires_review"},
		{"required_for unknown", `{"rules": [{"document_type": "passport", "required_for": "everyone"}]}`, "rules.0.required_for"},
		{"required_for bad tag", `{"rules": [{"document_type": "passport", "required_for": "tag:Big Trucks"}]}`, "rules.0.required_for"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := admin.Put(rulesPath(company), tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			fields, _ := body["errors"].(map[string]any)
			if msgs, _ := fields[tt.field].([]any); len(msgs) == 0 {
				t.Errorf("no message for %s: %v", tt.field, fields)
			}
		})
	}
	// All or nothing: a valid entry beside an invalid one is not stored.
	admin.Put(rulesPath(company), `{"rules": [{"document_type": "code_95", "lead_days": 10}, {"document_type": "passport", "lead_days": -3}]}`).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Put(rulesPath(company), `{"rules": [`).ExpectError(http.StatusBadRequest, "BadRequest")
	if after := string(admin.Get(rulesPath(company)).Expect(http.StatusOK).Body); after != before {
		t.Errorf("refused updates changed the rules:\n%s\n%s", before, after)
	}
	// A tag group is accepted.
	if r := rulesByType(t, admin.Put(rulesPath(company), `{"rules": [{"document_type": "adr_certificate", "required": true, "required_for": "tag:adr"}]}`))["adr_certificate"]; r["required_for"] != "tag:adr" {
		t.Errorf("tag rule: %v", r)
	}
}

func TestDocumentRulesPermissions(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	valid := `{"rules": [{"document_type": "passport", "lead_days": 100}]}`
	for _, role := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
		c := env.As(company, role)
		c.Get(rulesPath(company)).ExpectError(http.StatusForbidden, "Forbidden")
		c.Put(rulesPath(company), valid).ExpectError(http.StatusForbidden, "Forbidden")
	}
	env.As(company, auth.RoleDispatcher).Put(rulesPath(company), `{"rules": [`).ExpectError(http.StatusForbidden, "Forbidden")
	hr := env.As(company, auth.RoleHRManager)
	hr.Get(rulesPath(other)).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Put(rulesPath(other), valid).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Put(rulesPath(uuid.New()), valid).ExpectError(http.StatusNotFound, "NotFound")
	hr.Get("/api/v0/companies/not-a-uuid/document-rules").ExpectError(http.StatusNotFound, "NotFound")
	env.Anonymous().Get(rulesPath(company)).ExpectError(http.StatusUnauthorized, "Unauthorized")
	if r := rulesByType(t, env.As(other, auth.RoleAdmin).Get(rulesPath(other)))["passport"]; r["lead_days"] != float64(90) {
		t.Errorf("another company's rule changed: %v", r)
	}
}

// TestReadinessFollowsRules: is_ready counts the types the rules require,
// and a type required for drivers from outside the EU only for them.
func TestReadinessFollowsRules(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	czech := drvCreate(t, hr, map[string]any{"first_name": "A", "last_name": "Czech", "email": "a@example.cz", "citizenship": "CZ"})
	ukrainian := drvCreate(t, hr, map[string]any{"first_name": "B", "last_name": "Ukrainian", "email": "b@example.cz", "citizenship": "UA"})
	for _, id := range []uuid.UUID{czech.ID, ukrainian.ID} {
		for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
			drvSetDocument(t, env, id, typ, nil)
		}
	}
	// A work permit counts only while the residence permit does (the
	// validity chain, tested in TestValidityChains).
	drvSetDocument(t, env, ukrainian.ID, "residence_permit", drvDays(365))
	ready := func(id uuid.UUID) any {
		return hr.Get("/api/v0/drivers/" + id.String()).Expect(http.StatusOK).JSON()["is_ready"]
	}
	if ready(czech.ID) != true || ready(ukrainian.ID) != true {
		t.Fatal("both drivers should be ready with the default rules")
	}
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "work_permit", "required": true, "required_for": "non_eu"},
	}}).Expect(http.StatusOK)
	if ready(czech.ID) != true || ready(ukrainian.ID) != false {
		t.Errorf("work permit for non-EU drivers: czech %v, ukrainian %v", ready(czech.ID), ready(ukrainian.ID))
	}
	drvSetDocument(t, env, ukrainian.ID, "work_permit", drvDays(100))
	if ready(ukrainian.ID) != true {
		t.Error("the Ukrainian driver with a work permit is not ready")
	}
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "medical_examination", "required": false},
		map[string]any{"document_type": "adr_certificate", "required": true},
	}}).Expect(http.StatusOK)
	if ready(czech.ID) != false {
		t.Error("a driver without the newly required ADR certificate is ready")
	}
}
