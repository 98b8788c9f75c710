package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

func typesPath(company uuid.UUID) string {
	return "/api/v0/companies/" + company.String() + "/document-types"
}

// documentOf returns the driver's document of the type from its documents
// list (nil when the list has none).
func documentOf(t *testing.T, c *webtest.Caller, driverID uuid.UUID, typ string) map[string]any {
	t.Helper()
	var res struct {
		Data []map[string]any `json:"data"`
	}
	c.Get("/api/v0/drivers/" + driverID.String() + "/documents").Expect(http.StatusOK).Decode(&res)
	for _, d := range res.Data {
		if d["type"] == typ {
			return d
		}
	}
	return nil
}

// setValidity gives the driver's document of the type a file (when it has
// none) and valid_until today+days.
func setValidity(t *testing.T, env *webtest.Env, driverID uuid.UUID, typ string, days int) {
	t.Helper()
	tag, err := env.DB.Exec(t.Context(), `UPDATE driver_documents dd SET valid_until = konvoj_today(c.timezone) + $3::int
		FROM companies c WHERE c.id = dd.company_id AND dd.driver_id = $1 AND dd.type = $2 AND dd.current_file_id IS NOT NULL`,
		driverID, typ, days)
	if err != nil {
		t.Fatalf("set validity: %v", err)
	}
	if tag.RowsAffected() == 0 {
		drvSetDocument(t, env, driverID, typ, drvDays(days))
	}
}

// componentScore is a metric's score in a rating answer.
func componentScore(t *testing.T, rating map[string]any, metric string) any {
	t.Helper()
	comps, _ := rating["components"].(map[string]any)
	if m, ok := comps[metric].(map[string]any); ok {
		return m["score"]
	}
	t.Fatalf("no %s component in %v", metric, rating)
	return nil
}

// A custom type: every driver, old and new, has a record of it; it is in
// the documents list, the summary, the document_status and document_type
// filters, the exports and, once required, in readiness and the rating's
// document_expiration; retired, it leaves the lists and its record stays.
func TestCustomDocumentTypes(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	old := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz", "citizenship": "CZ"})
	drvMakeReady(t, env, old.ID)

	created := hr.Post(typesPath(company), map[string]any{
		"code": "adr_training", "names": map[string]any{"en": "ADR training", "cs": "Školení ADR"}, "lead_days": 45,
	}).Expect(http.StatusCreated).JSON()
	if created["code"] != "adr_training" || created["has_expiry"] != true || created["lead_days"] != float64(45) ||
		created["built_in"] != false || created["retired"] != false || created["capped_by"] != nil {
		t.Errorf("created %v", created)
	}
	var list struct {
		Data []map[string]any `json:"data"`
	}
	hr.Get(typesPath(company)).Expect(http.StatusOK).Decode(&list)
	if len(list.Data) != 15 || list.Data[0]["code"] != "passport" || list.Data[0]["built_in"] != true || list.Data[14]["code"] != "adr_training" {
		t.Fatalf("types list %v", list.Data)
	}
	if names := list.Data[0]["names"].(map[string]any); names["cs"] != "Cestovní pas" && names["cs"] == "" {
		t.Errorf("built-in names %v", names)
	}
	if wp := list.Data[3]; wp["code"] != "work_permit" || wp["capped_by"] != "residence_permit" {
		t.Errorf("work permit %v", wp)
	}

	recent := drvCreate(t, hr, map[string]any{"first_name": "Petr", "last_name": "Malý", "email": "petr@example.cz", "citizenship": "CZ"})
	for _, id := range []uuid.UUID{old.ID, recent.ID} {
		doc := documentOf(t, hr, id, "adr_training")
		if doc == nil || doc["status"] != "no_data" {
			t.Fatalf("driver %s: custom document %v", id, doc)
		}
		item := hr.Get("/api/v0/drivers?search=" + map[uuid.UUID]string{old.ID: "novak", recent.ID: "maly"}[id]).Expect(http.StatusOK).JSON()["data"].([]any)[0].(map[string]any)
		if sum := item["documents_summary"].(map[string]any); sum["total"] != float64(15) {
			t.Errorf("driver %s: summary %v, want 15 documents", id, sum)
		}
	}

	// The filters: an expired custom document is found by document_status,
	// and by document_type narrowing it.
	setValidity(t, env, old.ID, "adr_training", -3)
	drvIDs := func(query string) []string {
		var ids []string
		for _, it := range hr.Get("/api/v0/drivers?" + query).Expect(http.StatusOK).JSON()["data"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		return ids
	}
	if got := drvIDs("document_status=expired"); len(got) != 1 || got[0] != old.ID.String() {
		t.Errorf("document_status=expired: %v", got)
	}
	if got := drvIDs("document_status=expired&document_type=adr_training"); len(got) != 1 {
		t.Errorf("document_status=expired&document_type=adr_training: %v", got)
	}
	if got := drvIDs("document_status=expired&document_type=passport"); len(got) != 0 {
		t.Errorf("document_status=expired&document_type=passport: %v", got)
	}
	if got := drvIDs("document_status=no_data&document_type=adr_training"); len(got) != 1 || got[0] != recent.ID.String() {
		t.Errorf("document_status=no_data&document_type=adr_training: %v", got)
	}
	hr.Get("/api/v0/drivers?document_type=Bad%20Code").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	item := hr.Get("/api/v0/drivers?search=novak").Expect(http.StatusOK).JSON()["data"].([]any)[0].(map[string]any)
	if sum := item["documents_summary"].(map[string]any); sum["expired"] != float64(1) {
		t.Errorf("summary with the expired custom document %v", sum)
	}

	// Required: readiness, the compliance report and the rating count it.
	if r := hr.Get("/api/v0/drivers/" + old.ID.String()).Expect(http.StatusOK).JSON(); r["is_ready"] != true {
		t.Fatalf("ready before the custom type is required: %v", r["is_ready"])
	}
	before := componentScore(t, hr.Get("/api/v0/drivers/"+old.ID.String()+"/rating").Expect(http.StatusOK).JSON(), "document_expiration")
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "adr_training", "required": true},
	}}).Expect(http.StatusOK)
	if r := hr.Get("/api/v0/drivers/" + old.ID.String()).Expect(http.StatusOK).JSON(); r["is_ready"] != false {
		t.Errorf("ready with the required custom document expired")
	}
	after := componentScore(t, hr.Get("/api/v0/drivers/"+old.ID.String()+"/rating").Expect(http.StatusOK).JSON(), "document_expiration")
	if before != float64(100) || after.(float64) >= 100 {
		t.Errorf("document_expiration: %v before the custom type was required, %v after (expired)", before, after)
	}
	report := string(hr.Get("/api/v0/reports/compliance?format=csv").Expect(http.StatusOK).Body)
	if !strings.Contains(report, "Školení ADR,Prošlý") { // the company's language: Czech
		t.Errorf("the compliance report has no row of the custom type:\n%s", report)
	}
	export := string(hr.Get("/api/v0/drivers/export?format=csv&document_status=expired&document_type=adr_training").Expect(http.StatusOK).Body)
	if !strings.Contains(export, "DRV-0001") || strings.Contains(export, "DRV-0002") {
		t.Errorf("drivers export filtered by the custom type:\n%s", export)
	}

	// Retired: out of the lists and the rules; the record and the audit stay.
	hr.Put(typesPath(company)+"/adr_training", map[string]any{"retired": true}).Expect(http.StatusOK)
	if doc := documentOf(t, hr, old.ID, "adr_training"); doc != nil {
		t.Errorf("a retired type is still listed: %v", doc)
	}
	if r := hr.Get("/api/v0/drivers/" + old.ID.String()).Expect(http.StatusOK).JSON(); r["is_ready"] != true {
		t.Errorf("a retired required type still keeps the driver from being ready")
	}
	if got := drvIDs("document_status=expired"); len(got) != 0 {
		t.Errorf("document_status=expired finds a retired type's document: %v", got)
	}
	var n int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM driver_documents WHERE company_id = $1 AND type = 'adr_training' AND current_file_id IS NOT NULL`, company).Scan(&n); err != nil || n != 1 {
		t.Errorf("the retired type's record with its file: %d (%v)", n, err)
	}
	hr.Put(typesPath(company)+"/adr_training", map[string]any{"retired": false}).Expect(http.StatusOK)
	if doc := documentOf(t, hr, old.ID, "adr_training"); doc == nil || doc["status"] != "expired" {
		t.Errorf("brought back: %v", doc)
	}
	logs := hr.Get("/api/v0/audit-logs?entity_type=document_type").Expect(http.StatusOK).JSON()
	if logs["total"] != float64(3) {
		t.Errorf("%v audit rows of document types, want 3", logs["total"])
	}
}

// The bad input of custom types: 409 for a code taken, 422 for the rest,
// and nothing stored.
func TestDocumentTypeBadInput(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	hr.Post(typesPath(company), map[string]any{"code": "attestation", "names": map[string]any{"en": "Attestation"}}).Expect(http.StatusCreated)
	hr.Post(typesPath(company), map[string]any{"code": "posting", "names": map[string]any{"en": "Posting"}, "capped_by": "attestation"}).Expect(http.StatusCreated)

	hr.Post(typesPath(company), map[string]any{"code": "passport", "names": map[string]any{"en": "Mine"}}).ExpectError(http.StatusConflict, "DuplicateEntry")
	hr.Post(typesPath(company), map[string]any{"code": "attestation", "names": map[string]any{"en": "Again"}}).ExpectError(http.StatusConflict, "DuplicateEntry")
	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"code with a space", map[string]any{"code": "big truck", "names": map[string]any{"en": "x"}}, "code"},
		{"code with capitals", map[string]any{"code": "BigTruck", "names": map[string]any{"en": "x"}}, "code"},
		{"no names", map[string]any{"code": "x1"}, "names"},
		{"unknown language", map[string]any{"code": "x1", "names": map[string]any{"de": "x"}}, "names.de"},
		{"capped by an unknown type", map[string]any{"code": "x1", "names": map[string]any{"en": "x"}, "capped_by": "nothing"}, "capped_by"},
		{"capped by itself", map[string]any{"code": "x1", "names": map[string]any{"en": "x"}, "capped_by": "x1"}, "capped_by"},
		{"lead days too many", map[string]any{"code": "x1", "names": map[string]any{"en": "x"}, "lead_days": 731}, "lead_days"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := hr.Post(typesPath(company), tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if msgs, _ := body["errors"].(map[string]any)[tt.field].([]any); len(msgs) == 0 {
				t.Errorf("no message for %s: %v", tt.field, body["errors"])
			}
		})
	}
	// A cycle: attestation capped by posting, which is capped by attestation.
	body := hr.Put(typesPath(company)+"/attestation", map[string]any{"capped_by": "posting"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if _, ok := body["errors"].(map[string]any)["capped_by"]; !ok {
		t.Errorf("cycle: %v", body)
	}
	hr.Put(typesPath(company)+"/work_permit", map[string]any{"lead_days": 10}).ExpectError(http.StatusConflict, "Conflict")
	hr.Put(typesPath(company)+"/unknown_type", map[string]any{"lead_days": 10}).ExpectError(http.StatusNotFound, "NotFound")
	var n int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM document_types WHERE company_id = $1`, company).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d types stored, want 2 (%v)", n, err)
	}
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM driver_documents WHERE company_id = $1`, company).Scan(&n); err != nil || n != 16 {
		t.Errorf("%d document records, want 16 (%v)", n, err)
	}
	env.As(company, auth.RoleDispatcher).Post(typesPath(company), map[string]any{"code": "x2", "names": map[string]any{"en": "x"}}).
		ExpectError(http.StatusForbidden, "Forbidden")
}

// A type created without a code gets one made from its name: accents and
// Cyrillic spelled in ASCII, words joined by "_", a number added when a
// built-in or another type of the company has it; an explicit code is kept.
func TestDocumentTypeCodeFromName(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	for _, tt := range []struct {
		names map[string]any
		want  string
	}{
		{map[string]any{"cs": "Školení řidiče"}, "skoleni_ridice"},
		{map[string]any{"cs": "Školení řidiče"}, "skoleni_ridice_2"},
		{map[string]any{"en": "Passport", "cs": "Pas"}, "passport_2"},
		{map[string]any{"uk": "Посвідчення водія"}, "posvidchennya_vodiya"},
		{map[string]any{"en": "ADR – training (2027)!", "cs": "Školení ADR"}, "adr_training_2027"},
		{map[string]any{"en": "€ / %"}, "type"},
	} {
		body := hr.Post(typesPath(company), map[string]any{"names": tt.names}).Expect(http.StatusCreated).JSON()
		if body["code"] != tt.want {
			t.Errorf("code of %v = %v, want %s", tt.names, body["code"], tt.want)
		}
	}
	body := hr.Post(typesPath(company), map[string]any{"code": "own_code", "names": map[string]any{"en": "Whatever"}}).Expect(http.StatusCreated).JSON()
	if body["code"] != "own_code" {
		t.Errorf("explicit code = %v", body["code"])
	}
	long := hr.Post(typesPath(company), map[string]any{"names": map[string]any{"en": strings.Repeat("Very long name ", 6)}}).Expect(http.StatusCreated).JSON()
	if code, _ := long["code"].(string); len(code) > 40 || !strings.HasPrefix(code, "very_long_name_very") || strings.HasSuffix(code, "_") {
		t.Errorf("long name's code = %q", code)
	}
	// Every generated code is a type of the company with a document record.
	var n int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM document_types WHERE company_id = $1 AND code = 'skoleni_ridice_2'`, company).Scan(&n); err != nil || n != 1 {
		t.Errorf("skoleni_ridice_2 stored %d times (%v)", n, err)
	}
}

// A rule required for a tag changes is_ready for the drivers with the tag
// only.
func TestTagScopedRequirement(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	tagged := drvCreate(t, hr, map[string]any{"first_name": "A", "last_name": "Tagged", "email": "a@example.cz", "citizenship": "CZ", "tags": []string{"adr"}})
	plain := drvCreate(t, hr, map[string]any{"first_name": "B", "last_name": "Plain", "email": "b@example.cz", "citizenship": "CZ"})
	drvMakeReady(t, env, tagged.ID)
	drvMakeReady(t, env, plain.ID)
	hr.Post(typesPath(company), map[string]any{"code": "adr_training", "names": map[string]any{"en": "ADR training"}}).Expect(http.StatusCreated)
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "adr_training", "required": true, "required_for": "tag:adr"},
	}}).Expect(http.StatusOK)
	ready := func(id uuid.UUID) any {
		return hr.Get("/api/v0/drivers/" + id.String()).Expect(http.StatusOK).JSON()["is_ready"]
	}
	if ready(tagged.ID) != false || ready(plain.ID) != true {
		t.Errorf("tag rule: tagged %v, plain %v", ready(tagged.ID), ready(plain.ID))
	}
	setValidity(t, env, tagged.ID, "adr_training", 100)
	if ready(tagged.ID) != true {
		t.Error("the tagged driver with its ADR training is not ready")
	}
}

// Validity chains: a work permit counts only while the residence permit
// (or, without one, the biometric visa) does; a custom type capped by
// another follows it; limited_by names the cap while it is the worse.
func TestValidityChains(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "work_permit", "required": true, "required_for": "non_eu"},
	}}).Expect(http.StatusOK)
	hr.Post(typesPath(company), map[string]any{
		"code": "driver_attestation", "names": map[string]any{"en": "Driver attestation"}, "capped_by": "work_permit",
	}).Expect(http.StatusCreated)
	ua := drvCreate(t, hr, map[string]any{"first_name": "Olena", "last_name": "Shevchenko", "email": "olena@example.cz", "citizenship": "UA"})
	drvMakeReady(t, env, ua.ID)
	setValidity(t, env, ua.ID, "work_permit", 200)
	setValidity(t, env, ua.ID, "driver_attestation", 300)
	setValidity(t, env, ua.ID, "residence_permit", -1)

	wp := documentOf(t, hr, ua.ID, "work_permit")
	if wp["status"] != "expired" || wp["limited_by"] != "residence_permit" {
		t.Errorf("work permit under an expired residence permit: status %v limited_by %v", wp["status"], wp["limited_by"])
	}
	att := documentOf(t, hr, ua.ID, "driver_attestation")
	if att["status"] != "expired" || att["limited_by"] != "work_permit" {
		t.Errorf("attestation capped by the work permit: status %v limited_by %v", att["status"], att["limited_by"])
	}
	if rp := documentOf(t, hr, ua.ID, "residence_permit"); rp["limited_by"] != nil {
		t.Errorf("the residence permit has no cap: %v", rp["limited_by"])
	}
	got := hr.Get("/api/v0/drivers/" + ua.ID.String()).Expect(http.StatusOK).JSON()
	if got["is_ready"] != false {
		t.Error("a non-EU driver whose work permit is capped by an expired residence permit is ready")
	}
	var ids []any
	for _, it := range hr.Get("/api/v0/drivers?document_status=expired&document_type=work_permit").Expect(http.StatusOK).JSON()["data"].([]any) {
		ids = append(ids, it.(map[string]any)["id"])
	}
	if len(ids) != 1 || ids[0] != ua.ID.String() {
		t.Errorf("document_status=expired&document_type=work_permit: %v", ids)
	}
	if n := hr.Get("/api/v0/drivers?document_status=valid&document_type=work_permit").Expect(http.StatusOK).JSON()["total"]; n != float64(0) {
		t.Errorf("document_status=valid&document_type=work_permit: %v drivers", n)
	}

	// A valid visa does not stand in while a residence permit is on file.
	setValidity(t, env, ua.ID, "visa_biometrics", 100)
	if wp := documentOf(t, hr, ua.ID, "work_permit"); wp["status"] != "expired" {
		t.Errorf("with a visa beside the expired residence permit: %v", wp["status"])
	}
	// The renewed residence permit, in its warning window: the work permit
	// counts as warning, limited by it; the driver is ready.
	setValidity(t, env, ua.ID, "residence_permit", 20)
	wp = documentOf(t, hr, ua.ID, "work_permit")
	if wp["status"] != "warning" || wp["limited_by"] != "residence_permit" {
		t.Errorf("under a residence permit in its warning window: status %v limited_by %v", wp["status"], wp["limited_by"])
	}
	if got := hr.Get("/api/v0/drivers/" + ua.ID.String()).Expect(http.StatusOK).JSON(); got["is_ready"] != true {
		t.Error("not ready with a usable chain")
	}
	// Its own expiry is the worse: no limited_by.
	setValidity(t, env, ua.ID, "residence_permit", 365)
	setValidity(t, env, ua.ID, "work_permit", 5)
	wp = documentOf(t, hr, ua.ID, "work_permit")
	if wp["status"] != "expiring_soon" || wp["limited_by"] != nil {
		t.Errorf("own status the worse: status %v limited_by %v", wp["status"], wp["limited_by"])
	}
	// The rating counts the effective status of the required work permit.
	setValidity(t, env, ua.ID, "work_permit", 200)
	full := componentScore(t, hr.Get("/api/v0/drivers/"+ua.ID.String()+"/rating").Expect(http.StatusOK).JSON(), "document_expiration")
	setValidity(t, env, ua.ID, "residence_permit", -10)
	capped := componentScore(t, hr.Get("/api/v0/drivers/"+ua.ID.String()+"/rating").Expect(http.StatusOK).JSON(), "document_expiration")
	if full != float64(100) || capped.(float64) >= 100 {
		t.Errorf("document_expiration: %v with the chain valid, %v with the residence permit expired", full, capped)
	}
}

// A custom type without an expiry (has_expiry false) takes no valid_until:
// an upload or an update that sends one is 422 at valid_until and stores
// nothing (the driver import refuses it at its column); without one the
// document is valid and has no days left. A type
// with an expiry, and every built-in one, takes it as before; a date kept
// from before the type lost its expiry can be cleared.
func TestDocumentTypeWithoutExpiry(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	jan := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	hr.Post(typesPath(company), map[string]any{"code": "company_training", "names": map[string]any{"en": "Company training"},
		"has_expiry": false}).Expect(http.StatusCreated)
	hr.Post(typesPath(company), map[string]any{"code": "adr_training", "names": map[string]any{"en": "ADR training"}}).
		Expect(http.StatusCreated)
	docID := func(typ string) uuid.UUID {
		return uuid.MustParse(documentOf(t, hr, jan.ID, typ)["id"].(string))
	}
	training, adr := docID("company_training"), docID("adr_training")
	pdf := []byte("%PDF-1.7\n% training\n")

	body := upload(t, hr, training, filePart("training.pdf", pdf), field("valid_until", dateIn(300))).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if msgs, _ := body["errors"].(map[string]any)["valid_until"].([]any); len(msgs) != 1 ||
		msgs[0] != "Documents of this type do not expire; leave the end of validity empty." {
		t.Errorf("errors %v", body["errors"])
	}
	var files int
	if err := env.DB.QueryRow(t.Context(), `SELECT count(*) FROM document_files WHERE company_id = $1`, company).Scan(&files); err != nil || files != 0 {
		t.Errorf("a refused upload stored %d files (%v)", files, err)
	}
	upload(t, hr, training, filePart("training.pdf", pdf), field("number", "T-1")).Expect(http.StatusCreated)
	if doc := documentOf(t, hr, jan.ID, "company_training"); doc["status"] != "valid" || doc["valid_until"] != nil || doc["days_until_expiry"] != nil {
		t.Errorf("a document without expiry: %v", doc)
	}
	path := "/api/v0/documents/" + training.String()
	body = hr.Put(path, map[string]any{"valid_until": dateIn(30)}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if _, ok := body["errors"].(map[string]any)["valid_until"]; !ok {
		t.Errorf("update errors %v", body["errors"])
	}
	hr.Put(path, map[string]any{"number": "T-2", "valid_until": nil}).Expect(http.StatusOK)
	// The driver import refuses the date too, at its column.
	var im importResult
	sendImport(t, hr, "t.csv", []byte("email;company_training_number;company_training_valid_until\njan@example.cz;T-3;2030-01-31\n")).
		Expect(http.StatusCreated).Decode(&im)
	if len(im.Errors) != 1 || im.Errors[0].Row != 2 || im.Errors[0].Field != "company_training_valid_until" ||
		im.Errors[0].Message != "Documents of this type do not expire; leave the end of validity empty." {
		t.Errorf("import errors %+v", im.Errors)
	}

	// With an expiry, custom or built-in, the date is taken.
	upload(t, hr, adr, filePart("adr.pdf", pdf), field("valid_until", dateIn(300))).Expect(http.StatusCreated)
	if doc := documentOf(t, hr, jan.ID, "adr_training"); doc["valid_until"] != dateIn(300) {
		t.Errorf("a type with expiry: %v", doc)
	}
	upload(t, hr, docID("passport"), filePart("passport.pdf", pdf), field("valid_until", dateIn(900))).Expect(http.StatusCreated)

	// The type loses its expiry: the stored date stays until cleared, and
	// an upload that does not send one is taken.
	hr.Put(typesPath(company)+"/adr_training", map[string]any{"has_expiry": false}).Expect(http.StatusOK)
	upload(t, hr, adr, filePart("adr.pdf", pdf), field("number", "A-2")).Expect(http.StatusCreated)
	if doc := documentOf(t, hr, jan.ID, "adr_training"); doc["valid_until"] != dateIn(300) || doc["number"] != "A-2" {
		t.Errorf("after the type lost its expiry: %v", doc)
	}
	hr.Put("/api/v0/documents/"+adr.String(), map[string]any{"valid_until": nil}).Expect(http.StatusOK)
	if doc := documentOf(t, hr, jan.ID, "adr_training"); doc["valid_until"] != nil || doc["status"] != "valid" {
		t.Errorf("cleared: %v", doc)
	}
}
