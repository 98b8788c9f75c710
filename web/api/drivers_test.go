package api_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// drvItem is a driver list item or driver object as the tests read it.
type drvItem struct {
	ID               uuid.UUID      `json:"id"`
	CompanyID        uuid.UUID      `json:"company_id"`
	InternalNumber   string         `json:"internal_number"`
	FirstName        string         `json:"first_name"`
	LastName         string         `json:"last_name"`
	Email            string         `json:"email"`
	Phone            *string        `json:"phone"`
	Citizenship      *string        `json:"citizenship"`
	Status           string         `json:"status"`
	HireDate         *string        `json:"hire_date"`
	IsReady          bool           `json:"is_ready"`
	DocumentsSummary map[string]int `json:"documents_summary"`
	UpdatedAt        string         `json:"updated_at"`
}

type drvPage struct {
	Data     []drvItem `json:"data"`
	Total    int       `json:"total"`
	LastPage int       `json:"last_page"`
	Meta     struct {
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	} `json:"meta"`
}

func drvList(t *testing.T, c *webtest.Caller, query string) drvPage {
	t.Helper()
	var p drvPage
	c.Get("/api/v0/drivers?" + query).Expect(http.StatusOK).Decode(&p)
	return p
}

func drvIDs(items []drvItem) []uuid.UUID {
	out := make([]uuid.UUID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func drvCreate(t *testing.T, c *webtest.Caller, body map[string]any) drvItem {
	t.Helper()
	var d drvItem
	c.Post("/api/v0/drivers", body).Expect(http.StatusCreated).Decode(&d)
	return d
}

func drvCount(t *testing.T, env *webtest.Env, company uuid.UUID) int {
	t.Helper()
	return webtest.Value[int](t, env, `SELECT count(*) FROM drivers WHERE company_id = $1`, company)
}

// drvSetDocument gives a driver's document of one type a current file
// (unless noFile) valid until today+days in the company's time zone (no
// expiry when days is nil), as an upload would.
func drvSetDocument(t *testing.T, env *webtest.Env, driverID uuid.UUID, docType string, days *int) {
	t.Helper()
	_, err := env.DB.Exec(context.Background(), `
		WITH doc AS (
			SELECT dd.id, dd.company_id, c.timezone FROM driver_documents dd JOIN companies c ON c.id = dd.company_id
			WHERE dd.driver_id = $1 AND dd.type = $2
		), f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				storage_path, storage_disk, hash_sha256, valid_until)
			SELECT company_id, id, 'v1_' || gen_random_uuid() || '.pdf', 'scan.pdf', 'application/pdf', 10, 1, 'x', 'local', repeat('a', 64),
				CASE WHEN $3::int IS NULL THEN NULL ELSE konvoj_today(timezone) + $3::int END
			FROM doc RETURNING id, document_id
		)
		UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = CASE WHEN $3::int IS NULL THEN NULL ELSE konvoj_today(doc.timezone) + $3::int END
		FROM f, doc WHERE dd.id = f.document_id AND doc.id = dd.id`, driverID, docType, days)
	if err != nil {
		t.Fatalf("set document: %v", err)
	}
}

func drvDays(n int) *int { return &n }

func TestDriverCreateReadUpdateDelete(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)

	res := hr.Post("/api/v0/drivers", map[string]any{
		"first_name": " Jan ", "last_name": "Novák", "middle_name": "Petr", "email": "jan.novak@example.cz",
		"birth_date": "1985-03-14", "citizenship": "cz", "rodne_cislo": "850314/1234", "phone": "+420 777 111 222",
		"registration_address": "Hlavní 1, Praha", "residence_address": "Vedlejší 2, Brno", "status": "on_leave",
		"hire_date": "2020-01-15", "contract_from": "2020-01-15", "contract_to": "2026-01-14", "contract_indefinite": false,
		"work_location": "Praha", "bank_country": "cz", "bank_account": "19-2000145399/0800",
		"iban": "cz65 0800 0000 1920 0014 5399", "swift": "gibaczpx", "flags": map[string]any{"pas_souhlas": true, "note": "x"},
		"internal_number": "DRV-9999", "is_ready": true, "unknown_field": 1,
	}).Expect(http.StatusCreated)
	created := res.JSON()
	want := map[string]any{
		"company_id": company.String(), "office_id": nil, "internal_number": "DRV-0001", "first_name": "Jan",
		"last_name": "Novák", "middle_name": "Petr", "birth_date": "1985-03-14", "citizenship": "CZ",
		"rodne_cislo": "850314/1234", "email": "jan.novak@example.cz", "phone": "+420777111222",
		"registration_address": "Hlavní 1, Praha", "residence_address": "Vedlejší 2, Brno", "status": "on_leave",
		"hire_date": "2020-01-15", "fire_date": nil, "contract_from": "2020-01-15", "contract_to": "2026-01-14",
		"contract_indefinite": false, "work_location": "Praha", "bank_country": "CZ", "bank_account": "19-2000145399/0800",
		"iban": "CZ6508000000192000145399", "swift": "GIBACZPX", "is_ready": false,
	}
	for k, v := range want {
		if created[k] != v {
			t.Errorf("created %s = %v, want %v", k, created[k], v)
		}
	}
	if flags, _ := created["flags"].(map[string]any); flags["pas_souhlas"] != true || flags["note"] != "x" {
		t.Errorf("flags = %v", created["flags"])
	}
	if _, ok := created["documents"]; ok {
		t.Error("create response carries documents")
	}
	id := created["id"].(string)

	// The read adds the 14 document records, created empty with the driver.
	got := hr.Get("/api/v0/drivers/" + id).Expect(http.StatusOK).JSON()
	docs, _ := got["documents"].([]any)
	if len(docs) != 14 {
		t.Fatalf("%d documents, want 14", len(docs))
	}
	for _, d := range docs {
		doc := d.(map[string]any)
		if doc["status"] != "no_data" || doc["driver_id"] != id {
			t.Errorf("document %v", doc)
		}
		if files, ok := doc["files"].([]any); !ok || len(files) != 0 {
			t.Errorf("document files = %v, want []", doc["files"])
		}
	}

	// Partial update: only the fields sent change; null clears.
	upd := hr.Put("/api/v0/drivers/"+id, map[string]any{"phone": "+420 601 000 000", "middle_name": nil, "status": "active"}).
		Expect(http.StatusOK).JSON()
	if upd["phone"] != "+420601000000" || upd["middle_name"] != nil || upd["status"] != "active" ||
		upd["first_name"] != "Jan" || upd["iban"] != "CZ6508000000192000145399" {
		t.Errorf("after update: %v", upd)
	}
	if upd["updated_at"] == created["updated_at"] {
		t.Error("updated_at did not change")
	}
	// An update that changes nothing writes nothing.
	same := hr.Put("/api/v0/drivers/"+id, map[string]any{"phone": "+420 601 000 000"}).Expect(http.StatusOK).JSON()
	if same["updated_at"] != upd["updated_at"] {
		t.Error("a no-op update changed updated_at")
	}

	hr.Delete("/api/v0/drivers/" + id).Expect(http.StatusNoContent)
	hr.Get("/api/v0/drivers/"+id).ExpectError(http.StatusNotFound, "NotFound")
	hr.Put("/api/v0/drivers/"+id, map[string]any{"phone": "1"}).ExpectError(http.StatusNotFound, "NotFound")
	hr.Delete("/api/v0/drivers/"+id).ExpectError(http.StatusNotFound, "NotFound")
	if p := drvList(t, hr, ""); p.Total != 0 || len(p.Data) != 0 {
		t.Fatalf("deleted driver still listed: %+v", p)
	}
	// Its e-mail is free again; its number is not reused.
	again := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "JAN.NOVAK@example.cz"})
	if again.InternalNumber != "DRV-0002" {
		t.Fatalf("number after delete = %s, want DRV-0002", again.InternalNumber)
	}

	hr.Get("/api/v0/drivers/not-a-uuid").ExpectError(http.StatusNotFound, "NotFound")
	hr.Put("/api/v0/drivers/not-a-uuid", map[string]any{"phone": "1"}).ExpectError(http.StatusNotFound, "NotFound")
	hr.Delete("/api/v0/drivers/not-a-uuid").ExpectError(http.StatusNotFound, "NotFound")
	hr.Get("/api/v0/drivers/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")
}

// A phone is stored in E.164 whichever way it was written; one without its
// international prefix is read in the company's country (Czechia here);
// a birth date of today is accepted. The answer, the stored row and the
// list say the same.
func TestDriverPhoneNormalised(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	created := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz",
		"phone": "777 123 456", "birth_date": pragueDay(0)})
	if created.Phone == nil || *created.Phone != "+420777123456" {
		t.Fatalf("phone %v, want +420777123456", created.Phone)
	}
	path := "/api/v0/drivers/" + created.ID.String()
	for _, c := range [][2]string{{"00421 902 123 456", "+421902123456"}, {"+48 (601) 234-567", "+48601234567"}, {"", ""}} {
		written, want := c[0], c[1]
		got := hr.Put(path, map[string]any{"phone": written}).Expect(http.StatusOK).JSON()["phone"]
		if (want == "" && got != nil) || (want != "" && got != want) {
			t.Errorf("phone %q answered as %v, want %q", written, got, want)
		}
	}
	hr.Put(path, map[string]any{"phone": "+420 abc"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	var stored *string
	if err := env.DB.QueryRow(context.Background(), `SELECT phone FROM drivers WHERE id = $1`, created.ID).Scan(&stored); err != nil || stored != nil {
		t.Fatalf("stored phone %v (%v), want none: the refused update wrote nothing", stored, err)
	}
}

func TestDriverValidation(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	office, otherOffice := fixtures.Office(t, env.DB, company, "HQ"), fixtures.Office(t, env.DB, other, "HQ")
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"}
		for k, v := range extra {
			if v == "<absent>" {
				delete(b, k)
				continue
			}
			b[k] = v
		}
		return b
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name  string
		body  map[string]any
		field string
		msg   string
	}{
		{"first name missing", base(map[string]any{"first_name": "<absent>"}), "first_name", "The first name field is required."},
		{"last name empty", base(map[string]any{"last_name": "  "}), "last_name", "The last name field is required."},
		{"email missing", base(map[string]any{"email": "<absent>"}), "email", "The email field is required."},
		{"email null", base(map[string]any{"email": nil}), "email", "The email field is required."},
		{"email syntax", base(map[string]any{"email": "not-an-email"}), "email", "The email must be a valid email address."},
		{"email too long", base(map[string]any{"email": long(251) + "@x.cz"}), "email", "The email may not be greater than 255 characters."},
		{"first name too long", base(map[string]any{"first_name": long(101)}), "first_name", "The first name may not be greater than 100 characters."},
		{"last name too long", base(map[string]any{"last_name": long(101)}), "last_name", "The last name may not be greater than 100 characters."},
		{"middle name too long", base(map[string]any{"middle_name": long(101)}), "middle_name", "The middle name may not be greater than 100 characters."},
		{"rodne cislo too long", base(map[string]any{"rodne_cislo": long(21)}), "rodne_cislo", "The birth number may not be greater than 20 characters."},
		{"phone with letters", base(map[string]any{"phone": "+420 abc"}), "phone", "The phone “+420 abc” is not a phone number: write its digits with the country code, such as +420 777 123 456."},
		{"phone with a formula", base(map[string]any{"phone": "=1+1"}), "phone", "The phone “=1+1” is not a phone number: write its digits with the country code, such as +420 777 123 456."},
		{"birth date in the future", base(map[string]any{"birth_date": "2031-05-01"}), "birth_date", "The birth date cannot be in the future."},
		{"birth date tomorrow", base(map[string]any{"birth_date": pragueDay(1)}), "birth_date", "The birth date cannot be in the future."},
		{"birth date before 1900", base(map[string]any{"birth_date": "1899-12-31"}), "birth_date", "The birth date cannot be before 1900."},
		{"work location too long", base(map[string]any{"work_location": long(51)}), "work_location", "The work location may not be greater than 50 characters."},
		{"bank account too long", base(map[string]any{"bank_account": long(51)}), "bank_account", "The account number may not be greater than 50 characters."},
		{"first name not a string", base(map[string]any{"first_name": 42}), "first_name", "The first name must be a string."},
		{"impossible date", base(map[string]any{"birth_date": "1990-02-30"}), "birth_date", "The birth date is not a valid date."},
		{"date format", base(map[string]any{"hire_date": "15.01.2020"}), "hire_date", "The hire date is not a valid date."},
		{"date not a string", base(map[string]any{"contract_to": 20200101}), "contract_to", "The contract to is not a valid date."},
		{"citizenship", base(map[string]any{"citizenship": "XX"}), "citizenship", "The citizenship must be a valid ISO 3166-1 alpha-2 country code."},
		{"citizenship alpha-3", base(map[string]any{"citizenship": "CZE"}), "citizenship", "The citizenship must be a valid ISO 3166-1 alpha-2 country code."},
		{"bank country", base(map[string]any{"bank_country": "ZZ"}), "bank_country", "The bank country must be a valid ISO 3166-1 alpha-2 country code."},
		{"contract order", base(map[string]any{"contract_from": "2025-06-01", "contract_to": "2025-01-01"}), "contract_from", "The contract from must be a date before contract to."},
		{"contract same day", base(map[string]any{"contract_from": "2025-06-01", "contract_to": "2025-06-01"}), "contract_from", "The contract from must be a date before contract to."},
		{"fire before hire", base(map[string]any{"hire_date": "2025-01-10", "fire_date": "2025-01-09"}), "fire_date", "The end of employment cannot be before the hire date."},
		{"iban checksum", base(map[string]any{"iban": "CZ6508000000192000145398"}), "iban", "The IBAN is not valid."},
		{"iban not a string", base(map[string]any{"iban": 123}), "iban", "The IBAN must be a string."},
		{"swift", base(map[string]any{"swift": "GIBA"}), "swift", "The SWIFT / BIC must be a code of 8 or 11 characters."},
		{"status", base(map[string]any{"status": "fired"}), "status", "The selected status is invalid."},
		{"contract indefinite", base(map[string]any{"contract_indefinite": "yes"}), "contract_indefinite", "The contract for an indefinite period must be true or false."},
		{"flags not an object", base(map[string]any{"flags": []any{1}}), "flags", "The flags must be an object."},
		{"flag not a boolean", base(map[string]any{"flags": map[string]any{"propiska_cz": "ano"}}), "flags.propiska_cz", "The flags.propiska_cz field must be true or false."},
		{"office id syntax", base(map[string]any{"office_id": "HQ"}), "office_id", "The office must be a valid UUID."},
		{"unknown office", base(map[string]any{"office_id": uuid.NewString()}), "office_id", "The selected office does not exist."},
		{"office of another company", base(map[string]any{"office_id": otherOffice.String()}), "office_id", "The selected office does not exist."},
	}
	for _, tc := range cases {
		res := hr.Post("/api/v0/drivers", tc.body)
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422: %s", tc.name, res.Status, res.Body)
			continue
		}
		errs, _ := res.JSON()["errors"].(map[string]any)
		msgs, _ := errs[tc.field].([]any)
		if len(msgs) == 0 || msgs[0] != tc.msg {
			t.Errorf("%s: errors[%s] = %v, want %q (all: %v)", tc.name, tc.field, msgs, tc.msg, errs)
		}
	}
	// All three required fields at once, each with its message.
	body := hr.Post("/api/v0/drivers", map[string]any{}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	errs := body["errors"].(map[string]any)
	for _, f := range []string{"first_name", "last_name", "email"} {
		if _, ok := errs[f]; !ok {
			t.Errorf("no error for %s: %v", f, errs)
		}
	}
	if n := drvCount(t, env, company); n != 0 {
		t.Fatalf("%d drivers stored after failed creates", n)
	}

	// Valid edge cases are accepted.
	d := hr.Post("/api/v0/drivers", base(map[string]any{"office_id": office.String(), "citizenship": "xk", "fire_date": "2025-01-10",
		"hire_date": "2025-01-10", "iban": "DE89 3704 0044 0532 0130 00", "contract_indefinite": true})).Expect(http.StatusCreated).JSON()
	if d["office_id"] != office.String() || d["citizenship"] != "XK" || d["iban"] != "DE89370400440532013000" || d["contract_indefinite"] != true {
		t.Fatalf("created %v", d)
	}

	// Malformed JSON and a wrong content type are 400.
	hr.Post("/api/v0/drivers", `{"first_name": `).ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Post("/api/v0/drivers", `[1]`).ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Send(http.MethodPost, "/api/v0/drivers", strings.NewReader("first_name=Jan"),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}).ExpectError(http.StatusBadRequest, "BadRequest")
}

// Updates validate the merged record: a date pair is checked across the
// stored and the sent value, and the message goes to the field sent.
func TestDriverUpdateValidatesMergedRecord(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz",
		"contract_from": "2025-01-01", "hire_date": "2024-06-01", "phone": "+420 777 000 001"})
	path := "/api/v0/drivers/" + d.ID.String()

	cases := []struct {
		body  map[string]any
		field string
		msg   string
	}{
		{map[string]any{"contract_to": "2024-12-31"}, "contract_to", "The contract to must be a date after contract from."},
		{map[string]any{"contract_from": "2026-01-01", "contract_to": "2025-12-31"}, "contract_from", "The contract from must be a date before contract to."},
		{map[string]any{"fire_date": "2024-05-31"}, "fire_date", "The end of employment cannot be before the hire date."},
		{map[string]any{"first_name": nil}, "first_name", "The first name field is required."},
		{map[string]any{"email": "nope"}, "email", "The email must be a valid email address."},
	}
	for _, tc := range cases {
		body := hr.Put(path, tc.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		msgs, _ := body["errors"].(map[string]any)[tc.field].([]any)
		if len(msgs) == 0 || msgs[0] != tc.msg {
			t.Errorf("%v: errors %v, want %s: %q", tc.body, body["errors"], tc.field, tc.msg)
		}
	}
	// Nothing of the failed updates was applied.
	got := hr.Get(path).Expect(http.StatusOK).JSON()
	if got["contract_to"] != nil || got["fire_date"] != nil || got["first_name"] != "Jan" || got["phone"] != "+420777000001" {
		t.Fatalf("failed updates left changes: %v", got)
	}
	// Clearing contract_from makes an earlier contract_to acceptable; an
	// absent field is left alone.
	res := hr.Put(path, map[string]any{"contract_from": nil, "contract_to": "2024-12-31"}).Expect(http.StatusOK).JSON()
	if res["contract_from"] != nil || res["contract_to"] != "2024-12-31" || res["hire_date"] != "2024-06-01" || res["phone"] != "+420777000001" {
		t.Fatalf("after update: %v", res)
	}
	hr.Put(path, `{"phone": `).ExpectError(http.StatusBadRequest, "BadRequest")
}

func TestDriverDuplicateEmail(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	hr.Post("/api/v0/drivers", map[string]any{"first_name": "J", "last_name": "N", "email": "JAN@Example.cz"}).
		ExpectError(http.StatusConflict, "DuplicateEntry")
	// Another company may use the same e-mail.
	drvCreate(t, env.As(other, auth.RoleAdmin), map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	// Update to a taken e-mail.
	b := drvCreate(t, hr, map[string]any{"first_name": "Eva", "last_name": "Malá", "email": "eva@example.cz"})
	hr.Put("/api/v0/drivers/"+b.ID.String(), map[string]any{"email": "Jan@example.cz"}).ExpectError(http.StatusConflict, "DuplicateEntry")
	if b.InternalNumber != "DRV-0002" {
		t.Fatalf("a refused create consumed a number: %s", b.InternalNumber)
	}

	// Concurrent creates with one e-mail: exactly one wins, the others are
	// 409 (the unique index decides, not a check before the insert).
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = hr.Post("/api/v0/drivers", map[string]any{"first_name": "Race", "last_name": "R", "email": "race@example.cz"}).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d in %v", s, statuses)
		}
	}
	if created != 1 {
		t.Fatalf("%d concurrent creates with one e-mail succeeded: %v", created, statuses)
	}
}

func TestDriverConcurrentCreatesGetDistinctNumbers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	const n = 20
	numbers := make([]string, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := hr.Post("/api/v0/drivers", map[string]any{"first_name": "D", "last_name": fmt.Sprint(i), "email": fmt.Sprintf("d%d@example.cz", i)})
			statuses[i] = res.Status
			if res.Status == http.StatusCreated {
				var d drvItem
				res.Decode(&d)
				numbers[i] = d.InternalNumber
			}
		}()
	}
	wg.Wait()
	sort.Strings(numbers)
	for i, num := range numbers {
		if want := fmt.Sprintf("DRV-%04d", i+1); num != want {
			t.Fatalf("numbers %v (statuses %v), want DRV-0001..DRV-%04d", numbers, statuses, n)
		}
	}
	var docs int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM driver_documents WHERE company_id = $1`, company).Scan(&docs); err != nil {
		t.Fatal(err)
	}
	if docs != n*14 {
		t.Fatalf("%d document records, want %d", docs, n*14)
	}
}

func TestDriverPermissionsByRole(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	own := drvCreate(t, admin, map[string]any{"first_name": "Petr", "last_name": "Svoboda", "email": "petr@example.cz", "phone": "+420 777 000 001"})
	otherDriver := drvCreate(t, admin, map[string]any{"first_name": "Eva", "last_name": "Malá", "email": "eva@example.cz"})
	ownPath := "/api/v0/drivers/" + own.ID.String()
	body := map[string]any{"first_name": "X", "last_name": "Y", "email": "x@example.cz"}

	// Create and delete: admin and hr_manager only.
	for _, r := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
		c := env.As(company, r)
		c.Post("/api/v0/drivers", body).ExpectError(http.StatusForbidden, "Forbidden")
		c.Delete(ownPath).ExpectError(http.StatusForbidden, "Forbidden")
		// Role is checked before the record exists and before the body.
		c.Delete("/api/v0/drivers/"+uuid.NewString()).ExpectError(http.StatusForbidden, "Forbidden")
		c.Delete("/api/v0/drivers/not-a-uuid").ExpectError(http.StatusForbidden, "Forbidden")
		c.Post("/api/v0/drivers", `{"broken`).ExpectError(http.StatusForbidden, "Forbidden")
	}
	for _, r := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher} {
		c := env.As(company, r)
		c.Put(ownPath, map[string]any{"phone": "2"}).ExpectError(http.StatusForbidden, "Forbidden")
		if p := drvList(t, c, ""); p.Total != 2 {
			t.Errorf("%s lists %d drivers, want 2", r, p.Total)
		}
	}

	// documents on the read: files for admin/hr, statuses only for the
	// dispatcher, absent for the accountant.
	for _, tc := range []struct {
		role      auth.Role
		docs      bool
		withFiles bool
	}{
		{auth.RoleAdmin, true, true}, {auth.RoleHRManager, true, true},
		{auth.RoleDispatcher, true, false}, {auth.RoleAccountant, false, false},
	} {
		got := env.As(company, tc.role).Get(ownPath).Expect(http.StatusOK).JSON()
		docs, has := got["documents"].([]any)
		if has != tc.docs {
			t.Errorf("%s: documents present = %v, want %v", tc.role, has, tc.docs)
			continue
		}
		if has {
			_, files := docs[0].(map[string]any)["files"]
			if files != tc.withFiles {
				t.Errorf("%s: files present = %v, want %v", tc.role, files, tc.withFiles)
			}
		}
	}

	// A driver sees and edits only its own record.
	drv := env.As(company, auth.RoleDriver, "PETR@example.cz")
	p := drvList(t, drv, "")
	if p.Total != 1 || len(p.Data) != 1 || p.Data[0].ID != own.ID {
		t.Fatalf("driver's list: %+v", p)
	}
	if p := drvList(t, drv, "limit=10"); len(p.Data) != 1 || p.Data[0].ID != own.ID {
		t.Fatalf("driver's cursor list: %+v", p)
	}
	got := drv.Get(ownPath).Expect(http.StatusOK).JSON()
	if docs, _ := got["documents"].([]any); len(docs) != 14 {
		t.Fatalf("driver's own documents: %v", got["documents"])
	} else if _, ok := docs[0].(map[string]any)["files"]; !ok {
		t.Fatal("driver's own documents come without files")
	}
	otherPath := "/api/v0/drivers/" + otherDriver.ID.String()
	drv.Get(otherPath).ExpectError(http.StatusForbidden, "AccessDenied")
	drv.Put(otherPath, map[string]any{"phone": "2"}).ExpectError(http.StatusForbidden, "AccessDenied")
	drv.Get("/api/v0/drivers/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")

	upd := drv.Put(ownPath, map[string]any{"phone": "+420 777 000 002", "registration_address": "A", "residence_address": "B",
		"bank_country": "sk", "bank_account": "123", "iban": "SK3112000000198742637541", "swift": "SUBASKBX", "whatever": 1}).
		Expect(http.StatusOK).JSON()
	if upd["phone"] != "+420777000002" || upd["bank_country"] != "SK" || upd["iban"] != "SK3112000000198742637541" {
		t.Fatalf("driver's update: %v", upd)
	}
	for _, b := range []map[string]any{
		{"phone": "3", "first_name": "Hacker"},
		{"status": "active"},
		{"email": "other@example.cz"},
		{"internal_number": "DRV-0001"},
	} {
		drv.Put(ownPath, b).ExpectError(http.StatusForbidden, "Forbidden")
	}
	// Refused updates changed nothing; the driver's own field checks still apply.
	drv.Put(ownPath, map[string]any{"iban": "SK3112000000198742637540"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if got := admin.Get(ownPath).JSON(); got["phone"] != "+420777000002" || got["first_name"] != "Petr" {
		t.Fatalf("after refused updates: %v", got)
	}

	// A driver caller with no linked record sees nothing.
	stranger := env.As(company, auth.RoleDriver, "nobody@example.cz")
	if p := drvList(t, stranger, ""); p.Total != 0 || len(p.Data) != 0 {
		t.Fatalf("unlinked driver's list: %+v", p)
	}
	if p := drvList(t, stranger, "limit=5"); len(p.Data) != 0 || p.Meta.HasMore {
		t.Fatalf("unlinked driver's cursor list: %+v", p)
	}
	stranger.Get(ownPath).ExpectError(http.StatusForbidden, "AccessDenied")
	stranger.Put(ownPath, map[string]any{"phone": "9"}).ExpectError(http.StatusForbidden, "AccessDenied")
}

func TestDriverTenancy(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	a := env.Company("A", "free")
	b := env.Company("B", "free")
	hrA := env.As(a, auth.RoleHRManager)
	hrB := env.As(b, auth.RoleHRManager)
	dA := drvCreate(t, hrA, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	drvCreate(t, hrB, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan2@example.cz"})

	path := "/api/v0/drivers/" + dA.ID.String()
	hrB.Get(path).ExpectError(http.StatusForbidden, "AccessDenied")
	hrB.Put(path, map[string]any{"phone": "1"}).ExpectError(http.StatusForbidden, "AccessDenied")
	hrB.Delete(path).ExpectError(http.StatusForbidden, "AccessDenied")
	env.As(b, auth.RoleAccountant).Get(path).ExpectError(http.StatusForbidden, "AccessDenied")
	// Tenancy is checked before the body.
	hrB.Put(path, `{"broken`).ExpectError(http.StatusForbidden, "AccessDenied")
	// A driver of company B with A's driver's e-mail is not linked to it.
	env.As(b, auth.RoleDriver, "jan@example.cz").Get(path).ExpectError(http.StatusForbidden, "AccessDenied")

	for _, q := range []string{"", "search=novak", "limit=50", "document_status=no_data"} {
		p := drvList(t, hrB, q)
		if len(p.Data) != 1 || p.Data[0].ID == dA.ID {
			t.Fatalf("B's list %q: %+v", q, p.Data)
		}
	}
	if got := hrA.Get(path).Expect(http.StatusOK).JSON(); got["phone"] != nil {
		t.Fatalf("refused update applied: %v", got)
	}
}

func TestDriverAuditTrail(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz", "phone": "+420 777 000 001"})
	hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"phone": "+420 777 000 002", "first_name": "Jan", "citizenship": "CZ"}).Expect(http.StatusOK)
	hr.Delete("/api/v0/drivers/" + d.ID.String()).Expect(http.StatusNoContent)

	var logs struct {
		Data []struct {
			EntityType string         `json:"entity_type"`
			EntityID   uuid.UUID      `json:"entity_id"`
			UserID     uuid.UUID      `json:"user_id"`
			Action     string         `json:"action"`
			OldValues  map[string]any `json:"old_values"`
			NewValues  map[string]any `json:"new_values"`
		} `json:"data"`
		Total int `json:"total"`
	}
	env.As(company, auth.RoleAdmin).Get("/api/v0/audit-logs?entity_type=driver&entity_id=" + d.ID.String()).Expect(http.StatusOK).Decode(&logs)
	if logs.Total != 3 {
		t.Fatalf("%d audit rows, want 3: %+v", logs.Total, logs.Data)
	}
	var actions []string
	for _, l := range logs.Data {
		actions = append(actions, l.Action)
		if l.EntityType != "driver" || l.EntityID != d.ID || l.UserID != hr.UserID {
			t.Errorf("audit row %+v", l)
		}
	}
	if strings.Join(actions, ",") != "deleted,updated,created" {
		t.Fatalf("actions %v", actions)
	}
	created, updated, deleted := logs.Data[2], logs.Data[1], logs.Data[0]
	if created.OldValues != nil || created.NewValues["email"] != "jan@example.cz" || created.NewValues["internal_number"] != "DRV-0001" {
		t.Errorf("created row: %+v", created)
	}
	// Only the changed fields: first_name was sent unchanged.
	if len(updated.NewValues) != 2 || updated.NewValues["phone"] != "+420777000002" || updated.OldValues["phone"] != "+420777000001" ||
		updated.NewValues["citizenship"] != "CZ" || updated.OldValues["citizenship"] != nil {
		t.Errorf("updated row: old %v new %v", updated.OldValues, updated.NewValues)
	}
	if deleted.OldValues["email"] != "jan@example.cz" || deleted.NewValues != nil {
		t.Errorf("deleted row: old %v new %v", deleted.OldValues, deleted.NewValues)
	}
}

func TestDriverListFiltersAndSearch(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	office := fixtures.Office(t, env.DB, company, "Brno")
	mk := func(first, last, email, status, citizenship string, withOffice bool) drvItem {
		b := map[string]any{"first_name": first, "last_name": last, "email": email, "status": status, "citizenship": citizenship}
		if withOffice {
			b["office_id"] = office.String()
		}
		return drvCreate(t, hr, b)
	}
	novak := mk("Jan", "Novák", "jan@example.cz", "active", "CZ", true)             // DRV-0001
	rehak := mk("Jiří", "ŘEHÁK", "jiri@example.cz", "on_leave", "SK", false)        // DRV-0002
	dvorak := mk("Eva", "Dvořáková", "eva_100%@example.cz", "inactive", "PL", true) // DRV-0003
	kral := mk("Petr", "Král", "petr@example.cz", "terminated", "CZ", false)        // DRV-0004
	drvSetDocument(t, env, novak.ID, "passport", drvDays(-1))                       // expired
	drvSetDocument(t, env, rehak.ID, "passport", drvDays(10))                       // expiring_soon
	drvSetDocument(t, env, dvorak.ID, "passport", drvDays(20))                      // warning

	ids := func(items []drvItem) []uuid.UUID { return drvIDs(items) }
	cases := []struct {
		query string
		want  []uuid.UUID
	}{
		{"", []uuid.UUID{novak.ID, rehak.ID, dvorak.ID, kral.ID}},
		{"status=active", []uuid.UUID{novak.ID}},
		{"status=on_leave,terminated", []uuid.UUID{rehak.ID, kral.ID}},
		{"office_id=" + office.String(), []uuid.UUID{novak.ID, dvorak.ID}},
		{"citizenship=cz", []uuid.UUID{novak.ID, kral.ID}},
		{"citizenship=SK,PL", []uuid.UUID{rehak.ID, dvorak.ID}},
		{"citizenship=CZ&status=active,on_leave", []uuid.UUID{novak.ID}},
		{"document_status=expired", []uuid.UUID{novak.ID}},
		{"document_status=expired,warning", []uuid.UUID{novak.ID, dvorak.ID}},
		{"document_status=valid", nil},
		{"document_status=no_data", []uuid.UUID{novak.ID, rehak.ID, dvorak.ID, kral.ID}},
		// Case- and accent-insensitive, both ways.
		{"search=novak", []uuid.UUID{novak.ID}},
		{"search=NOVÁK", []uuid.UUID{novak.ID}},
		{"search=rehak", []uuid.UUID{rehak.ID}},
		{"search=Řehák", []uuid.UUID{rehak.ID}},
		{"search=jiri", []uuid.UUID{rehak.ID}},
		{"search=dvorakova", []uuid.UUID{dvorak.ID}},
		{"search=kral+petr", []uuid.UUID{kral.ID}},
		{"search=drv-0004", []uuid.UUID{kral.ID}},
		{"search=0002", []uuid.UUID{rehak.ID}},
		{"search=example.cz", []uuid.UUID{novak.ID, rehak.ID, dvorak.ID, kral.ID}},
		// LIKE wildcards are plain characters.
		{"search=" + url.QueryEscape("100%"), []uuid.UUID{dvorak.ID}},
		{"search=" + url.QueryEscape("%"), []uuid.UUID{dvorak.ID}},
		{"search=_", []uuid.UUID{dvorak.ID}},
		{"search=nobody", nil},
		{"search=novak&status=inactive", nil},
		{"sort_by=last_name", []uuid.UUID{dvorak.ID, kral.ID, novak.ID, rehak.ID}},
		{"sort_by=internal_number&sort_order=desc", []uuid.UUID{kral.ID, dvorak.ID, rehak.ID, novak.ID}},
		{"sort_by=created_at&sort_order=desc", []uuid.UUID{kral.ID, dvorak.ID, rehak.ID, novak.ID}},
	}
	for _, tc := range cases {
		p := drvList(t, hr, tc.query)
		if got := ids(p.Data); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%q: got %v, want %v", tc.query, got, tc.want)
		}
		if p.Total != len(tc.want) {
			t.Errorf("%q: total %d, want %d", tc.query, p.Total, len(tc.want))
		}
	}

	for _, q := range []string{"sort_by=email", "sort_by=first_name", "sort_order=up", "status=fired", "document_status=ok",
		"citizenship=XX", "search=" + strings.Repeat("a", 101)} {
		hr.Get("/api/v0/drivers?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	}
	for _, q := range []string{"page=0", "page=x", "per_page=abc", "office_id=HQ", "limit=0", "limit=x"} {
		hr.Get("/api/v0/drivers?"+q).ExpectError(http.StatusBadRequest, "BadRequest")
	}
}

func TestDriverListEnvelopeAndSummary(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ready := drvCreate(t, hr, map[string]any{"first_name": "A", "last_name": "Ready", "email": "a@example.cz", "phone": "+420 777 000 001", "citizenship": "CZ", "hire_date": "2024-01-01"})
	for i, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		d := []*int{nil, drvDays(60), drvDays(20), drvDays(3), drvDays(0)}[i] // valid (no expiry), valid, warning, expiring_soon, expiring_soon
		drvSetDocument(t, env, ready.ID, typ, d)
	}
	drvSetDocument(t, env, ready.ID, "adr_certificate", drvDays(-5)) // expired, but not required
	onLeave := drvCreate(t, hr, map[string]any{"first_name": "B", "last_name": "Leave", "email": "b@example.cz", "status": "on_leave"})
	for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		drvSetDocument(t, env, onLeave.ID, typ, nil)
	}
	missing := drvCreate(t, hr, map[string]any{"first_name": "C", "last_name": "Missing", "email": "c@example.cz"})
	for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95"} {
		drvSetDocument(t, env, missing.ID, typ, nil)
	}
	expired := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": "Expired", "email": "d@example.cz"})
	for i, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		d := []*int{nil, nil, nil, nil, drvDays(-1)}[i]
		drvSetDocument(t, env, expired.ID, typ, d)
	}

	res := hr.Get("/api/v0/drivers?per_page=2").Expect(http.StatusOK)
	env1 := res.JSON()
	if env1["total"] != float64(4) || env1["last_page"] != float64(2) || env1["per_page"] != float64(2) || env1["current_page"] != float64(1) ||
		env1["from"] != float64(1) || env1["to"] != float64(2) || env1["prev_page_url"] != nil || env1["next_page_url"] == nil {
		t.Fatalf("envelope: %v", env1)
	}
	item := env1["data"].([]any)[0].(map[string]any)
	var keys []string
	for k := range item {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "citizenship,created_at,documents_summary,email,first_name,hire_date,id,internal_number,is_ready,last_name,phone,status,updated_at" {
		t.Fatalf("list item fields: %s", got)
	}

	p := drvList(t, hr, "per_page=500") // clamped to 100
	byID := map[uuid.UUID]drvItem{}
	for _, it := range p.Data {
		byID[it.ID] = it
	}
	for _, tc := range []struct {
		id      uuid.UUID
		ready   bool
		summary map[string]int
	}{
		{ready.ID, true, map[string]int{"total": 14, "valid": 2, "warning": 1, "expiring_soon": 2, "expired": 1, "no_data": 8}},
		{onLeave.ID, false, map[string]int{"total": 14, "valid": 5, "warning": 0, "expiring_soon": 0, "expired": 0, "no_data": 9}},
		{missing.ID, false, map[string]int{"total": 14, "valid": 4, "warning": 0, "expiring_soon": 0, "expired": 0, "no_data": 10}},
		{expired.ID, false, map[string]int{"total": 14, "valid": 4, "warning": 0, "expiring_soon": 0, "expired": 1, "no_data": 9}},
	} {
		it := byID[tc.id]
		if it.IsReady != tc.ready || !maps.Equal(it.DocumentsSummary, tc.summary) {
			t.Errorf("%s: ready %v summary %v, want %v %v", it.LastName, it.IsReady, it.DocumentsSummary, tc.ready, tc.summary)
		}
		// The single read agrees with the list.
		if got := hr.Get("/api/v0/drivers/" + tc.id.String()).JSON(); got["is_ready"] != tc.ready {
			t.Errorf("%s: read is_ready %v, want %v", it.LastName, got["is_ready"], tc.ready)
		}
	}
	if p.Total != 4 {
		t.Fatalf("total %d", p.Total)
	}

	// The required set is the company's document rules.
	hr.Put("/api/v0/companies/"+company.String()+"/document-rules", map[string]any{"rules": []any{
		map[string]any{"document_type": "tachograph_card", "required": false},
		map[string]any{"document_type": "code_95", "required": false},
		map[string]any{"document_type": "medical_examination", "required": false},
	}}).Expect(http.StatusOK)
	p = drvList(t, hr, "")
	for _, it := range p.Data {
		want := it.ID == ready.ID || it.ID == missing.ID || it.ID == expired.ID
		if it.IsReady != want {
			t.Errorf("with custom required set, %s ready = %v, want %v", it.LastName, it.IsReady, want)
		}
	}

	// A page past the end still reports the total.
	past := hr.Get("/api/v0/drivers?page=9&per_page=2").Expect(http.StatusOK).JSON()
	if past["total"] != float64(4) || len(past["data"].([]any)) != 0 || past["from"] != nil {
		t.Fatalf("page past the end: %v", past)
	}
}

// drvPageAll pages with limit from the first page (query: sort and
// filters) to the end, sending the filters with every cursor, and returns
// the ids in order.
func drvPageAll(t *testing.T, c *webtest.Caller, query, filters string, limit int) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	q := fmt.Sprintf("limit=%d&%s&%s", limit, query, filters)
	for i := 0; ; i++ {
		p := drvList(t, c, q)
		ids = append(ids, drvIDs(p.Data)...)
		if !p.Meta.HasMore {
			if p.Meta.NextCursor != nil {
				t.Fatal("next_cursor on the last page")
			}
			return ids
		}
		if p.Meta.NextCursor == nil || len(p.Data) != limit || i > 100 {
			t.Fatalf("bad page: %+v", p.Meta)
		}
		q = fmt.Sprintf("limit=%d&cursor=%s&%s", limit, url.QueryEscape(*p.Meta.NextCursor), filters)
	}
}

// Cursor paging visits the same rows in the same order as one big offset
// page, for every sort, including hire_date with nulls (last both ways).
func TestDriverCursorPagingMatchesOrder(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	names := []string{"Novák", "Svoboda", "Novák", "Dvořák", "Černý", "Novák", "Procházka", "Kučera", "Veselý", "Horák", "Novák"}
	for i := range 23 {
		b := map[string]any{"first_name": "D", "last_name": names[i%len(names)], "email": fmt.Sprintf("d%d@example.cz", i)}
		if i%3 != 0 { // a third without hire date; several share one date
			b["hire_date"] = fmt.Sprintf("2024-0%d-01", 1+i%4)
		}
		if i%5 == 0 {
			b["status"] = "inactive"
		}
		drvCreate(t, hr, b)
	}
	for _, sortBy := range []string{"internal_number", "last_name", "hire_date", "created_at"} {
		for _, order := range []string{"asc", "desc"} {
			q := "sort_by=" + sortBy + "&sort_order=" + order
			want := drvIDs(drvList(t, hr, q+"&per_page=100").Data)
			for _, limit := range []int{1, 4, 7} {
				if got := drvPageAll(t, hr, q, "", limit); !slices.Equal(got, want) {
					t.Fatalf("%s limit %d: cursor order differs from offset order\n got %v\nwant %v", q, limit, got, want)
				}
			}
		}
	}
	// Nulls last in both directions.
	for _, order := range []string{"asc", "desc"} {
		p := drvList(t, hr, "sort_by=hire_date&per_page=100&sort_order="+order)
		if p.Data[0].HireDate == nil || p.Data[len(p.Data)-1].HireDate != nil {
			t.Fatalf("%s: nulls not last", order)
		}
	}
	// Filters apply in cursor mode too.
	if got := drvPageAll(t, hr, "sort_by=last_name", "status=inactive", 2); len(got) != 5 {
		t.Fatalf("%d inactive drivers paged, want 5", len(got))
	}

	first := drvList(t, hr, "limit=5&sort_by=last_name")
	if len(first.Data) != 5 || !first.Meta.HasMore || first.Meta.NextCursor == nil {
		t.Fatalf("first page %+v", first.Meta)
	}
	cur := *first.Meta.NextCursor
	// The cursor's own sort applies; the same sort may be repeated.
	hr.Get("/api/v0/drivers?sort_by=last_name&sort_order=asc&cursor=" + url.QueryEscape(cur)).Expect(http.StatusOK)
	hr.Get("/api/v0/drivers?sort_by=hire_date&cursor="+url.QueryEscape(cur)).ExpectError(http.StatusBadRequest, "BadRequest")
	// Tampered cursors are 400.
	body, sig, _ := strings.Cut(cur, ".")
	for _, bad := range []string{"x", cur + "A", body[:len(body)-1] + "B." + sig, body + "." + strings.Repeat("A", len(sig))} {
		hr.Get("/api/v0/drivers?cursor="+url.QueryEscape(bad)).ExpectError(http.StatusBadRequest, "BadRequest")
	}
	// limit above 100 is clamped; cursor mode has no total.
	p := hr.Get("/api/v0/drivers?limit=1000").Expect(http.StatusOK).JSON()
	if len(p["data"].([]any)) != 23 || p["meta"].(map[string]any)["has_more"] != false {
		t.Fatalf("clamped limit: %v", p["meta"])
	}
	if _, ok := p["total"]; ok {
		t.Fatal("cursor page carries total")
	}
}

// Paging while other requests insert drivers: no row is seen twice and every
// row that existed at the start is seen.
func TestDriverCursorPagingUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	surnames := []string{"Adam", "Beneš", "Cibulka", "Doležal", "Fiala", "Hájek", "Jelínek", "Kolář", "Marek", "Pokorný", "Růžička", "Šimek", "Urban", "Zeman"}
	start := map[uuid.UUID]bool{}
	for i := range 40 {
		d := drvCreate(t, hr, map[string]any{"first_name": "S", "last_name": surnames[i%len(surnames)], "email": fmt.Sprintf("s%d@example.cz", i)})
		start[d.ID] = true
	}
	for _, sortBy := range []string{"internal_number", "last_name"} {
		var inserted atomic.Int64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			// A bounded number, so that on a slow machine the inserts cannot
			// outrun the pages and keep the listing from reaching its end.
			for i := 0; i < 60; i++ {
				select {
				case <-stop:
					return
				default:
				}
				res := hr.Post("/api/v0/drivers", map[string]any{"first_name": "N", "last_name": surnames[(i*5)%len(surnames)],
					"email": fmt.Sprintf("n-%s-%d@example.cz", sortBy, i)})
				if res.Status == http.StatusCreated {
					inserted.Add(1)
				}
			}
		}()
		seen := map[uuid.UUID]int{}
		q := "limit=3&sort_by=" + sortBy
		for pages := 0; ; pages++ {
			p := drvList(t, hr, q)
			for _, it := range p.Data {
				seen[it.ID]++
			}
			// Besides the background inserts, one lands between every two pages.
			drvCreate(t, hr, map[string]any{"first_name": "M", "last_name": surnames[(pages*3)%len(surnames)],
				"email": fmt.Sprintf("m-%s-%d@example.cz", sortBy, pages)})
			if !p.Meta.HasMore {
				break
			}
			if pages > 200 {
				t.Fatalf("%s: still paging after %d pages", sortBy, pages)
			}
			q = "limit=3&cursor=" + url.QueryEscape(*p.Meta.NextCursor)
		}
		close(stop)
		<-done
		if inserted.Load() == 0 {
			t.Fatalf("%s: no concurrent insert happened", sortBy)
		}
		for id, n := range seen {
			if n > 1 {
				t.Fatalf("%s: %s seen %d times", sortBy, id, n)
			}
		}
		for id := range start {
			if seen[id] != 1 {
				t.Fatalf("%s: row %s that existed at the start was skipped", sortBy, id)
			}
		}
	}
}

// drvQueryCounter counts the statements the server sends to PostgreSQL.
type drvQueryCounter struct{ n atomic.Int64 }

func (q *drvQueryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *drvQueryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The list computes summaries and is_ready for the whole page in SQL: the
// number of queries does not grow with per_page.
func TestDriverListQueryCountIndependentOfPageSize(t *testing.T) {
	t.Parallel()
	counter := &drvQueryCounter{}
	env := webtest.New(t, webtest.WithTracer(counter))
	company := env.Company("Acme", "free")
	for i := 1; i <= 120; i++ {
		env.Driver(company, fixtures.Name("Jan", fmt.Sprintf("Novák %d", i)), fixtures.Email(fmt.Sprintf("d%d@example.cz", i)))
	}
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/drivers?per_page=1").Expect(http.StatusOK) // warm up: user provisioning
	count := func(q string) (int64, int) {
		before := counter.n.Load()
		p := drvList(t, hr, q)
		return counter.n.Load() - before, len(p.Data)
	}
	for _, extra := range []string{"", "&document_status=no_data&search=novak", "&sort_by=hire_date"} {
		one, n1 := count("per_page=1" + extra)
		hundred, n100 := count("per_page=100" + extra)
		if n1 != 1 || n100 != 100 {
			t.Fatalf("pages of %d and %d items", n1, n100)
		}
		if one != hundred {
			t.Fatalf("%q: %d queries for per_page=1, %d for per_page=100", extra, one, hundred)
		}
		if one > 2 {
			t.Fatalf("%q: %d queries for a list request, want at most 2 (principal, list)", extra, one)
		}
		c1, _ := count("limit=1" + extra)
		c100, _ := count("limit=100" + extra)
		if c1 != c100 || c1 != one {
			t.Fatalf("%q: cursor mode %d and %d queries, offset %d", extra, c1, c100, one)
		}
	}
}

// TestDriverPersonalFields: the personal fields reach admin, hr_manager,
// accountant and the driver itself; a dispatcher's read has no such keys
// (docs/permissions.md), and the answers still match the OpenAPI document.
func TestDriverPersonalFields(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	d := drvCreate(t, admin, map[string]any{"first_name": "Petr", "last_name": "Svoboda", "email": "petr@example.cz",
		"birth_date": "1980-02-03", "rodne_cislo": "800203/1234", "registration_address": "Praha 1",
		"residence_address": "Brno 2", "bank_country": "CZ", "bank_account": "123456/0800",
		"iban": "CZ6508000000192000145399", "swift": "GIBACZPX"})
	path := "/api/v0/drivers/" + d.ID.String()
	personal := auth.PersonalFields
	if len(personal) != 8 {
		t.Fatalf("personal fields: %v", personal)
	}
	for _, c := range []struct {
		caller *webtest.Caller
		name   string
		sees   bool
	}{
		{admin, "admin", true}, {env.As(company, auth.RoleHRManager), "hr_manager", true},
		{env.As(company, auth.RoleAccountant), "accountant", true},
		{env.As(company, auth.RoleDriver, "petr@example.cz"), "driver", true},
		{env.As(company, auth.RoleDispatcher), "dispatcher", false},
	} {
		got := c.caller.Get(path).Expect(http.StatusOK).JSON()
		for _, k := range personal {
			if _, has := got[k]; has != c.sees {
				t.Errorf("%s: key %s present = %v, want %v", c.name, k, has, c.sees)
			}
		}
		if got["first_name"] != "Petr" || got["email"] != "petr@example.cz" {
			t.Errorf("%s: the other fields: %v", c.name, got)
		}
		if c.sees && (got["rodne_cislo"] != "800203/1234" || got["iban"] != "CZ6508000000192000145399") {
			t.Errorf("%s: personal values: %v", c.name, got)
		}
	}
	// The driver's own update answers with its personal fields.
	upd := env.As(company, auth.RoleDriver, "petr@example.cz").Put(path, map[string]any{"phone": "+420 777 000 001"}).Expect(http.StatusOK).JSON()
	if upd["bank_account"] != "123456/0800" {
		t.Errorf("driver's update answer: %v", upd)
	}
}
