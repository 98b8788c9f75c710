package pages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web/webtest"
)

// upload posts a file with metadata fields as the upload form does. The
// token travels in the header, as static/upload.js sends it (the form
// without JavaScript: TestPlainFormUploads).
func (b *browser) upload(path, filename string, content []byte, fields map[string]string, token bool) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if filename != "" || content != nil {
		fw, _ := w.CreateFormFile("file", filename)
		_, _ = fw.Write(content)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.abs(path), &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if token {
		req.Header.Set("X-CSRF-Token", b.cookie("konvoj_csrf"))
	}
	return b.do(req)
}

// documentPath is the page of a driver's document of the type.
func documentPath(t *testing.T, env *webtest.Env, driver uuid.UUID, docType string) string {
	t.Helper()
	var id uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = $2`, driver, docType).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return "/drivers/" + driver.String() + "/documents/" + id.String()
}

var downloadLink = regexp.MustCompile(`href="(/files/[0-9a-f-]+/download)"`)

func TestUploadVersionsAndDownload(t *testing.T) {
	env := devEnv(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = 64 << 10 }))
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	path := documentPath(t, env, driver, "drivers_license")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")

	hr.get(path).expect(t, http.StatusOK).
		contains(t, "Driving licence", `data-status="no_data"`, `enctype="multipart/form-data"`, `accept="application/pdf,image/*"`,
			`capture="environment"`, `data-max-bytes="65536"`, "At most 64\u00a0KiB", "No file has been uploaded yet.")

	// A plain form post: stored, then back to the page with a message.
	v1 := []byte("%PDF-1.7\nversion one")
	// 20 days after today in the company's time zone (Europe/Prague), which
	// is tomorrow in UTC late in the evening.
	today, err := time.Parse(time.DateOnly, webtest.Today())
	if err != nil {
		t.Fatal(err)
	}
	soon := today.AddDate(0, 0, 20).Format(time.DateOnly)
	res := hr.upload(path, "řidičák.pdf", v1, map[string]string{"number": "EK 123456", "valid_until": soon}, true).expect(t, http.StatusSeeOther)
	if res.Header.Get("Location") != path {
		t.Errorf("after upload: %q", res.Header.Get("Location"))
	}
	hr.get(path).expect(t, http.StatusOK).
		contains(t, "Version 1 was uploaded.", `data-status="warning"`, "Renew soon", "EK 123456", "20 days left", "řidičák.pdf", "hana@acme.test")

	// The script's request (htmx protocol) gets the panel with the new state.
	hr.Header.Set("HX-Request", "true")
	v2 := []byte("%PDF-1.7\nversion two, renewed")
	later := time.Now().AddDate(2, 0, 0).Format(time.DateOnly)
	// A renewal's form asks for the new document's details, empty, and
	// clears what is left empty (details=replace): the new version has its
	// own number and dates, the old one keeps its own in the history.
	hr.get(path).expect(t, http.StatusOK).
		contains(t, `data-testid="upload-renewal"`, `name="details" value="replace"`, "New number").
		lacks(t, `value="EK 123456"`)
	panel := hr.upload(path, "renewed.pdf", v2, map[string]string{"details": "replace", "valid_until": later}, true).expect(t, http.StatusOK).
		lacks(t, "<html", `data-testid="document-number">EK 123456<`).contains(t, `id="document-panel"`, "Version 2 was uploaded.", `data-status="valid"`)
	for version, want := range map[string][]string{
		"2": {`data-testid="version-number">—<`, `data-testid="version-valid-until">` + i18n.EN.Date(mustDate(t, later)) + `<`},
		"1": {`data-testid="version-number">EK 123456<`, `data-testid="version-valid-until">` + i18n.EN.Date(mustDate(t, soon)) + `<`},
	} {
		details := regexp.MustCompile(`(?s)data-testid="version-details-` + version + `".*?</dl>`).FindString(panel.Body)
		for _, w := range want {
			if !strings.Contains(details, w) {
				t.Errorf("version %s's details lack %s: %s", version, w, details)
			}
		}
	}
	if i, j := strings.Index(panel.Body, `data-testid="version-2"`), strings.Index(panel.Body, `data-testid="version-1"`); i < 0 || j < i {
		t.Errorf("history not newest first (v2 at %d, v1 at %d)", i, j)
	}
	links := downloadLink.FindAllStringSubmatch(panel.Body, -1)
	if len(links) != 2 {
		t.Fatalf("download links: %v", links)
	}

	// Refusals come back in the form, at their fields.
	hr.upload(path, "virus.exe", []byte("MZ\x90\x00"+strings.Repeat("\x00", 600)), nil, true).expect(t, http.StatusUnsupportedMediaType).
		contains(t, `data-testid="upload-error-file"`, "This kind of file cannot be uploaded.")
	hr.upload(path, "big.pdf", append([]byte("%PDF-1.7\n"), make([]byte, 70<<10)...), nil, true).expect(t, http.StatusRequestEntityTooLarge).
		contains(t, "The file is too large. Choose a file of at most 64\u00a0KiB.")
	hr.upload(path, "", nil, map[string]string{"number": "X"}, true).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="upload-error-file"`, "The file field is required.")
	hr.upload(path, "a.pdf", v1, map[string]string{"valid_from": "2030-01-01", "valid_until": "2029-01-01"}, true).
		expect(t, http.StatusUnprocessableEntity).contains(t, `data-testid="upload-error-valid_until"`, "The end of validity cannot be before the start of validity.")
	// Without the token nothing is stored.
	hr.upload(path, "a.pdf", v1, nil, false).expect(t, http.StatusForbidden)
	hr.Header.Del("HX-Request")
	var versions int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM document_files WHERE company_id = $1`, company).Scan(&versions); err != nil || versions != 2 {
		t.Errorf("stored versions: %d, %v", versions, err)
	}

	// Version 1 downloads with its bytes and the API's headers.
	res = hr.get(links[1][1]).expect(t, http.StatusOK)
	if res.Body != string(v1) {
		t.Errorf("version 1 body %q", res.Body)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="ridicak.pdf"`) || !strings.Contains(cd, "filename*=UTF-8''%C5%99idi%C4%8D%C3%A1k.pdf") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if res.Header.Get("Content-Type") != "application/pdf" || res.Header.Get("Cache-Control") != "private, no-cache" || res.Header.Get("ETag") == "" {
		t.Errorf("headers %v", res.Header)
	}

	// Czech: labels and the service's messages.
	hr.post("/language", map[string][]string{"lang": {"cs"}}).expect(t, http.StatusSeeOther)
	hr.get(path).expect(t, http.StatusOK).contains(t, "Řidičský průkaz", "Historie verzí", "Verze 2", "Aktuální", "Stáhnout", "Platný", "Nahrát novou verzi")
	hr.Header.Set("HX-Request", "true")
	hr.upload(path, "a.pdf", v1, map[string]string{"valid_from": "2030-01-01", "valid_until": "2029-01-01"}, true).
		expect(t, http.StatusUnprocessableEntity).contains(t, "Platnost do nesmí být před platností od.")
	hr.Header.Del("HX-Request")

	// The driver: its own documents, upload and download; nobody else's.
	drv := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	drv.get(path).expect(t, http.StatusOK).contains(t, "Upload a new version", "Version history")
	drv.get(links[0][1]).expect(t, http.StatusOK)
	other := env.Driver(company, fixtures.FirstName("Karel"))
	otherPath := documentPath(t, env, other, "passport")
	drv.get(otherPath).expect(t, http.StatusForbidden)
	drv.upload(otherPath, "a.pdf", v1, nil, true).expect(t, http.StatusForbidden)

	// The dispatcher sees statuses only; the accountant no documents.
	disp := signIn(t, env, company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get(path).expect(t, http.StatusOK).contains(t, `data-status="valid"`).lacks(t, "Upload a new version", "Version history", "/download")
	disp.get(links[0][1]).expect(t, http.StatusForbidden)
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get(path).expect(t, http.StatusForbidden)
	acc.upload(path, "a.pdf", v1, nil, true).expect(t, http.StatusForbidden)
	acc.get(links[0][1]).expect(t, http.StatusForbidden)
}

// Every message the drivers and documents services give for bad input has
// a Czech translation: the pages show none in English.
func TestServiceMessagesAreTranslated(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	// The services run on the request pool: their queries see the company
	// the request's context names (as the server's middleware sets it).
	ctx := postgres.WithCompany(context.Background(), company)
	hr := auth.Principal{UserID: uuid.New(), CompanyID: company, Role: auth.RoleHRManager}
	svc := env.App.Services

	// messages: each English message with its Czech rendering.
	messages := map[string]string{}
	collect := func(err error) {
		t.Helper()
		var e *apperr.Error
		if !asAppErr(err, &e) {
			t.Fatalf("not a service error: %v", err)
		}
		csMsg, csFields := e.In(i18n.CS)
		if len(e.Fields) == 0 {
			messages[e.Message] = csMsg
		}
		for f, msgs := range e.Fields {
			for i, m := range msgs {
				messages[m] = csFields[f][i]
			}
		}
	}
	long := strings.Repeat("x", 300)
	bad := []map[string]any{
		{}, // the required fields
		{"first_name": "", "last_name": "", "email": "", "status": ""},
		{"first_name": long, "last_name": long, "middle_name": long, "rodne_cislo": long, "email": long + "@x.cz", "phone": long,
			"work_location": long, "bank_account": long},
		{"first_name": 1, "last_name": 1, "middle_name": 1, "rodne_cislo": 1, "phone": 1, "registration_address": 1,
			"residence_address": 1, "work_location": 1, "bank_account": 1, "email": 1, "status": 1, "citizenship": 1,
			"bank_country": 1, "office_id": 1, "iban": 1, "swift": 1},
		{"birth_date": "x", "hire_date": "x", "fire_date": "x", "contract_from": "x", "contract_to": "x",
			"citizenship": "XX", "bank_country": "XX", "office_id": "x", "email": "not-an-email", "status": "retired",
			"contract_indefinite": "maybe", "iban": "CZ00", "swift": "X", "flags": []int{}},
		{"flags": map[string]any{"pas_souhlas": 1, "propiska_cz": "yes"}},
		{"contract_from": "2025-02-01", "contract_to": "2025-01-01", "hire_date": "2025-02-01", "fire_date": "2025-01-01"},
		{"office_id": uuid.NewString()},
	}
	for _, fields := range bad {
		var in drivers.Input
		for k, v := range fields {
			if err := in.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		_, err := svc.Drivers.Create(ctx, hr, given(in))
		collect(err)
	}
	var in drivers.Input
	for k, v := range map[string]any{"first_name": "A", "last_name": "B", "email": "a@b.cz"} {
		_ = in.Set(k, v)
	}
	if _, err := svc.Drivers.Create(ctx, hr, given(in)); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Drivers.Create(ctx, hr, given(in))
	collect(err)
	// The rules across fields name the field that was sent.
	id := env.Driver(company)
	for _, steps := range [][2]map[string]any{
		{{"fire_date": "2025-01-01"}, {"hire_date": "2025-02-01"}},
		{{"contract_from": "2025-02-01"}, {"contract_to": "2025-01-01"}},
	} {
		for i, fields := range steps {
			var upd drivers.Input
			for k, v := range fields {
				_ = upd.Set(k, v)
			}
			_, err := svc.Drivers.Update(ctx, hr, id, given(upd))
			if i == 1 {
				collect(err)
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err = svc.Drivers.List(ctx, hr, given(drivers.ListParams{Status: []string{"x"}, Citizenship: []string{"xx"},
		DocumentStatus: []string{"x"}, Search: long, SortBy: "x", SortOrder: "x", Page: paging.Request{Number: 1, Size: 10}}))
	collect(err)

	// Documents: the upload's and the metadata update's messages.
	var docID uuid.UUID
	if err := env.DB.QueryRow(ctx, `SELECT id FROM driver_documents WHERE driver_id = $1 LIMIT 1`, id).Scan(&docID); err != nil {
		t.Fatal(err)
	}
	for _, body := range []map[string]any{
		{"number": strings.Repeat("1", 101), "country": "Czechia", "valid_from": "x", "valid_until": "x", "meta": []int{}},
		{"number": "a\u0000b", "meta": map[string]string{"x": strings.Repeat("y", 70<<10)}},
		{"number": 1, "country": 1, "valid_from": 1, "valid_until": 1},
		{"valid_from": "2030-01-01", "valid_until": "2029-01-01"},
	} {
		raw := toRaw(t, body)
		_, err := svc.Documents.Update(ctx, hr, docID, func(in *map[string]json.RawMessage) error {
			*in = raw
			return nil
		})
		collect(err)
	}
	for _, parts := range [][][2]string{
		{{"number", "1"}},
		{{"file", "%PDF-1.7"}, {"file", "%PDF-1.7"}, {"number", "1"}, {"number", "2"}, {"country", "CZ"}, {"country", "CZ"},
			{"valid_from", "2020-01-01"}, {"valid_from", "2020-01-01"}, {"valid_until", "2030-01-01"}, {"valid_until", "2030-01-01"},
			{"meta", "{}"}, {"meta", "{}"}},
		{{"number", strings.Repeat("1", 2000)}, {"country", strings.Repeat("1", 2000)}, {"valid_from", strings.Repeat("1", 2000)},
			{"valid_until", strings.Repeat("1", 2000)}, {"meta", strings.Repeat("1", 70<<10)}},
		{{"file", "MZ" + strings.Repeat("\x00", 600)}},
	} {
		mr := multipartOf(t, parts)
		_, err := svc.Documents.Upload(ctx, hr, uuid.Nil, docID, func() (*multipart.Reader, error) { return mr, nil })
		collect(err)
	}
	_, err = svc.Documents.Upload(ctx, hr, uuid.Nil, docID, func() (*multipart.Reader, error) {
		return multipart.NewReader(strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.7 cut"), "b"), nil
	})
	collect(err)

	for en, cs := range messages {
		if cs == en || cs == "" || strings.HasPrefix(cs, "msg.") {
			t.Errorf("no Czech translation of %q (got %q)", en, cs)
		}
	}
	if len(messages) < 60 {
		t.Errorf("only %d distinct messages checked: the bad inputs no longer reach the rules", len(messages))
	}
}

func mustDate(t *testing.T, s string) civil.Date {
	t.Helper()
	d, err := civil.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func asAppErr(err error, target **apperr.Error) bool { return errors.As(err, target) }

func toRaw(t *testing.T, body map[string]any) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for k, v := range body {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = b
	}
	return out
}

// multipartOf opens a multipart body of the parts (a "file" part gets a
// file name), as the upload service reads it.
func multipartOf(t *testing.T, parts [][2]string) *multipart.Reader {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		if p[0] == "file" {
			fw, _ := w.CreateFormFile("file", "scan.pdf")
			_, _ = fw.Write([]byte(p[1]))
		} else {
			_ = w.WriteField(p[0], p[1])
		}
	}
	_ = w.Close()
	return multipart.NewReader(&body, w.Boundary())
}

// given is a service's read of its input as the test gives it.
func given[T any](v T) func(*T) error {
	return func(in *T) error {
		*in = v
		return nil
	}
}

// TestCappedDocumentCardIsConsistent: a work permit limited by a residence
// permit that is due sooner shows one date and one cause everywhere: the
// badge, "valid until", the days left and "limited by" all follow the
// residence permit, on HR's driver page, the document page and the
// driver's own pages; the document page also says the permit's own end.
func TestCappedDocumentCardIsConsistent(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	jan := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	today := mustDate(t, webtest.Today())
	permitEnd, residenceEnd := today.AddDays(279), today.AddDays(20)
	pdf := []byte("%PDF-1.7\n% scan\n")
	workPermit := documentPath(t, env, jan, "work_permit")
	hr.upload(workPermit, "wp.pdf", pdf, map[string]string{"number": "WP-1", "valid_until": permitEnd.String()}, true).expect(t, http.StatusSeeOther)
	hr.upload(documentPath(t, env, jan, "residence_permit"), "rp.pdf", pdf, map[string]string{"valid_until": residenceEnd.String()}, true).
		expect(t, http.StatusSeeOther)

	tile := regexp.MustCompile(`(?s)data-testid="document-work_permit".*?</a>`)
	drv := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	for who, b := range map[string]*browser{"hr": hr, "driver": drv} {
		card := tile.FindString(b.get("/drivers/"+jan.String()).expect(t, http.StatusOK).Body)
		for _, want := range []string{`data-status="warning"`, "Renew soon", "Limited by Residence permit",
			`data-testid="valid-until">` + i18n.EN.Date(residenceEnd) + `<`, "20 days left"} {
			if !strings.Contains(card, want) {
				t.Errorf("%s's work permit card lacks %q: %s", who, want, card)
			}
		}
		if strings.Contains(card, i18n.EN.Date(permitEnd)) || strings.Contains(card, "279 days") {
			t.Errorf("%s's work permit card shows the permit's own date: %s", who, card)
		}
		b.get(workPermit).expect(t, http.StatusOK).contains(t,
			`data-testid="document-days-left">20 days left<`,
			`data-testid="document-valid-until">`+i18n.EN.Date(residenceEnd)+`<`,
			`data-testid="document-cause">Residence permit<`,
			`data-testid="document-own-valid-until">`+i18n.EN.Date(permitEnd)+`<`,
			"Counts as Renew soon because the Residence permit is Renew soon.").
			lacks(t, "279 days left")
	}

	// Without a residence permit on file (and no visa), the permit counts
	// as missing, and the card says which document is missing.
	if _, err := env.DB.Exec(context.Background(), `UPDATE driver_documents SET current_file_id = NULL WHERE driver_id = $1 AND type = 'residence_permit'`, jan); err != nil {
		t.Fatal(err)
	}
	card := tile.FindString(hr.get("/drivers/"+jan.String()).expect(t, http.StatusOK).Body)
	for _, want := range []string{`data-status="no_data"`, "Limited by Residence permit", "No Residence permit on file"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card with no residence permit lacks %q: %s", want, card)
		}
	}
	if strings.Contains(card, "days left") || strings.Contains(card, i18n.EN.Date(permitEnd)) {
		t.Errorf("the card with no residence permit counts days: %s", card)
	}
}
