package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
)

// TestDocumentTypesPage: the page lists the built-in types, adds a custom
// one through the service with a code made from its name (every driver
// gets a record of it; a second type of the same name gets the next code),
// shows a type without a name (422) as a form error, stores nothing
// refused, refuses an end of validity for a type without expiry, and
// retires a type, which leaves the driver's page; built-in
// types cannot be edited, and a dispatcher may not open the page.
func TestDocumentTypesPage(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	jan := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	ctx := context.Background()

	hr.get("/document-types").expect(t, http.StatusOK).
		contains(t, "<h1", "Document types", `data-testid="type-passport"`, `data-testid="type-medical_examination"`, "Built-in",
			`data-testid="type-code-hint"`).
		lacks(t, `data-testid="edit-passport"`, `data-testid="form-errors"`, `name="code"`)

	add := func(name, cs string) url.Values {
		return url.Values{"name.en": {name}, "name.cs": {cs}, "lead_days": {"45"},
			"has_expiry": {"false", "true"}, "capped_by": {""}}
	}
	hr.post("/document-types", add("ADR training", "Školení ADR")).expect(t, http.StatusSeeOther)
	hr.get("/document-types").expect(t, http.StatusOK).
		contains(t, "The document type was saved.", `data-testid="type-adr_training"`, "ADR training", `data-testid="edit-adr_training"`)
	var hasExpiry bool
	var lead, records int
	if err := env.DB.QueryRow(ctx, `SELECT t.has_expiry, r.lead_days,
			(SELECT count(*) FROM driver_documents dd WHERE dd.company_id = $1 AND dd.driver_id = $2 AND dd.type = t.code)
		FROM document_types t JOIN document_rules r ON r.company_id = t.company_id AND r.document_type = t.code
		WHERE t.company_id = $1 AND t.code = 'adr_training'`, company, jan).Scan(&hasExpiry, &lead, &records); err != nil {
		t.Fatal(err)
	}
	if !hasExpiry || lead != 45 || records != 1 {
		t.Errorf("stored type: has_expiry %v, lead days %d, the driver's records %d", hasExpiry, lead, records)
	}
	hr.get("/drivers/"+jan.String()).expect(t, http.StatusOK).contains(t, `data-testid="document-adr_training"`, "ADR training")

	// The same name again gets the next free code; no name at all is
	// refused in the form, with what was typed.
	hr.post("/document-types", add("ADR training", "Školení ADR")).expect(t, http.StatusSeeOther)
	hr.post("/document-types", add("", "")).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="form-errors"`, "Give the type a name in at least one language.", `value="45"`)
	rows, err := env.DB.Query(ctx, `SELECT code FROM document_types WHERE company_id = $1 ORDER BY seq`, company)
	if err != nil {
		t.Fatal(err)
	}
	if codes, err := pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || !slices.Equal(codes, []string{"adr_training", "adr_training_2"}) {
		t.Errorf("custom types stored %v (%v), want adr_training and adr_training_2", codes, err)
	}
	var count int

	// Edit, then retire: hidden from the driver, its record kept.
	hr.get("/document-types/adr_training").expect(t, http.StatusOK).
		contains(t, `action="/document-types/adr_training"`, `id="type-retired"`, `value="ADR training"`, `value="45"`).
		lacks(t, `id="type-code"`)
	hr.post("/document-types/adr_training", url.Values{"name.en": {"ADR training"}, "name.cs": {"Školení ADR"}, "lead_days": {"45"},
		"has_expiry": {"false", "true"}, "capped_by": {""}, "retired": {"false", "true"}}).expect(t, http.StatusSeeOther)
	list := hr.get("/document-types").expect(t, http.StatusOK)
	row := regexp.MustCompile(`(?s)data-testid="type-adr_training".*?</tr>`).FindString(list.Body)
	if !regexp.MustCompile(`>\s*Retired\s*<`).MatchString(row) {
		t.Errorf("the retired type's row does not say so: %s", row)
	}
	hr.get("/drivers/"+jan.String()).expect(t, http.StatusOK).lacks(t, `data-testid="document-adr_training"`)
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM driver_documents WHERE company_id = $1 AND type = 'adr_training'`, company).Scan(&count); err != nil || count != 1 {
		t.Errorf("the retired type's records: %d (%v), want 1 kept", count, err)
	}
	// A name cleared in every language is refused at the edit form.
	hr.post("/document-types/adr_training", url.Values{"lead_days": {"45"}, "has_expiry": {"true"}, "retired": {"true"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, "Give the type a name in at least one language.", `data-testid="form-errors"`)

	// A type without an expiry takes no end of validity, from the upload
	// form as from the API; without one the upload is stored.
	hr.post("/document-types", url.Values{"name.en": {"Company training"}, "lead_days": {"30"},
		"has_expiry": {"false"}, "capped_by": {""}}).expect(t, http.StatusSeeOther)
	training := documentPath(t, env, jan, "company_training")
	pdf := []byte("%PDF-1.7\n% training\n")
	hr.upload(training, "training.pdf", pdf, map[string]string{"valid_until": "2031-01-31"}, true).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="upload-error-valid_until"`, "Documents of this type do not expire; leave the end of validity empty.")
	hr.upload(training, "training.pdf", pdf, map[string]string{"number": "T-1"}, true).expect(t, http.StatusSeeOther)
	hr.get(training).expect(t, http.StatusOK).contains(t, `data-status="valid"`, "T-1", "No expiry date")

	// Built-in types are not edited here.
	hr.get("/document-types/passport").expect(t, http.StatusNotFound)
	hr.post("/document-types/passport", url.Values{"name.en": {"Passport"}, "lead_days": {"30"}}).expect(t, http.StatusConflict)

	signIn(t, env, company, auth.RoleDispatcher, "dita@acme.test", "en").get("/document-types").expect(t, http.StatusForbidden)
}

// TestDocumentTypesOneOrder: every list of document types and documents
// orders them one way, the built-in types in their fixed order and then
// the company's own oldest first (not by code): the types and rules of the
// API, a driver's documents, the dashboard's "not ready because…" line and
// the day's alerts.
func TestDocumentTypesOneOrder(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	jan := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"), fixtures.Citizenship("CZ"))
	api := env.As(company, auth.RoleHRManager)
	typesPath := "/api/v0/companies/" + company.String() + "/document-types"
	for _, c := range []struct{ code, name string }{{"zz_first", "Zeta first"}, {"bb_retired", "Beta retired"}, {"aa_second", "Alpha second"}} {
		api.Post(typesPath, map[string]any{"code": c.code, "names": map[string]any{"en": c.name}}).Expect(http.StatusCreated)
	}
	api.Put(typesPath+"/bb_retired", map[string]any{"retired": true}).Expect(http.StatusOK)
	api.Put("/api/v0/companies/"+company.String()+"/document-rules", map[string]any{"rules": []any{
		map[string]any{"document_type": "zz_first", "required": true},
		map[string]any{"document_type": "aa_second", "required": true},
		map[string]any{"document_type": "adr_certificate", "required": true, "required_for": "tag:adr"},
	}}).Expect(http.StatusOK)
	api.Put("/api/v0/drivers/"+jan.String(), map[string]any{"tags": []string{"adr"}}).Expect(http.StatusOK)
	required := []string{"passport", "drivers_license", "adr_certificate", "tachograph_card", "code_95", "medical_examination", "zz_first", "aa_second"}

	live := append(slices.Clone(documents.Types), "zz_first", "aa_second")
	codes := func(path, key string) []string {
		var res struct{ Data []map[string]any }
		api.Get(path).Expect(http.StatusOK).Decode(&res)
		var out []string
		for _, d := range res.Data {
			out = append(out, d[key].(string))
		}
		return out
	}
	for _, c := range []struct {
		what string
		got  []string
		want []string
	}{
		{"document types", codes(typesPath, "code"), append(slices.Clone(documents.Types), "zz_first", "bb_retired", "aa_second")},
		{"document rules", codes("/api/v0/companies/"+company.String()+"/document-rules", "document_type"), live},
		{"a driver's documents", codes("/api/v0/drivers/"+jan.String()+"/documents", "type"), live},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s in the order %v, want %v", c.what, c.got, c.want)
		}
	}

	// Not ready because of the required types, in the same order.
	home := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en").get("/").expect(t, http.StatusOK)
	line := regexp.MustCompile(`(?s)data-testid="not-ready-driver".*?</li>`).FindString(home.Body)
	at := -1
	for _, code := range required {
		name := i18n.EN.T("doc.type." + code)
		if !documents.IsBuiltIn(code) {
			name = map[string]string{"zz_first": "Zeta first", "aa_second": "Alpha second"}[code]
		}
		i := strings.Index(line, ">"+name+"<")
		if i <= at {
			t.Errorf("not ready because…: %q is missing or out of order in %s", name, line)
		}
		at = i
	}

	// The compliance report: the driver's required types, the tag-scoped
	// one among the others.
	var reported []string
	for _, row := range strings.Split(strings.TrimSpace(string(api.Get("/api/v0/reports/compliance?format=csv").Expect(http.StatusOK).Body)), "\n")[1:] {
		for _, code := range required {
			name := i18n.CS.T("doc.type." + code)
			if !documents.IsBuiltIn(code) {
				name = map[string]string{"zz_first": "Zeta first", "aa_second": "Alpha second"}[code]
			}
			if strings.Contains(row, ","+name+",") {
				reported = append(reported, code)
			}
		}
	}
	if !slices.Equal(reported, required) {
		t.Errorf("compliance report rows in the order %v, want %v", reported, required)
	}

	// The day's alerts: the missing required documents, in the same order.
	res, err := alerts.NewScanner(env.DB, env.Server.URL).Scan(context.Background(), company, civil.DateOf(time.Now().In(prague(t))), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, a := range res.Alerts {
		if a.Stage == "missing" {
			missing = append(missing, a.DocumentType)
		}
	}
	if !slices.Equal(missing, required) {
		t.Errorf("missing-document alerts in the order %v, want %v", missing, required)
	}
}
