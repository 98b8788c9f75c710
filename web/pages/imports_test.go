package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/imports"
)

var importLocation = regexp.MustCompile(`^/drivers/import/([0-9a-f-]{36})$`)

// importID is the import a redirect opens.
func importAt(t *testing.T, p page) string {
	t.Helper()
	loc := p.Header.Get("Location")
	if loc == "" {
		loc = p.Header.Get("HX-Redirect")
	}
	m := importLocation.FindStringSubmatch(loc)
	if m == nil {
		t.Fatalf("no import page in the answer (%d, Location %q): %s", p.Status, loc, truncate(p.Body))
	}
	return m[1]
}

// The import pages in Czech: the link on the list, the template, a file
// with a bad row (the error at its row and cell), another column match,
// the fixed file confirmed, and the refusals.
func TestImportPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Dopravce", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@dopravce.test", "cs")

	hr.get("/drivers").expect(t, http.StatusOK).contains(t, `href="/drivers/import"`, "Import řidičů")
	hr.get("/drivers/import").expect(t, http.StatusOK).
		contains(t, "Šablona pro Excel (XLSX)", `href="/drivers/import/template?format=xlsx"`, `href="/drivers/import/template?format=csv"`,
			`enctype="multipart/form-data"`, `hx-post="/drivers/import"`, "Zkontrolovat soubor")
	tpl := hr.get("/drivers/import/template?format=csv").expect(t, http.StatusOK)
	if !strings.HasPrefix(tpl.Header.Get("Content-Type"), "text/csv") || !strings.Contains(tpl.Body, "Příjmení") ||
		!strings.Contains(tpl.Body, "Aktivní") || !strings.Contains(tpl.Header.Get("Content-Disposition"), "drivers-import-template.csv") {
		t.Errorf("template: %v %s", tpl.Header, truncate(tpl.Body))
	}

	// A file with one bad row: the e-mail of row 3.
	bad := "Jméno;Příjmení;E-mail;Stav;Poznámka\nJan;Novák;jan@dopravce.test;Aktivní;Brno\nEva;Malá;neni-email;Aktivní;Praha\n"
	first := importAt(t, hr.upload("/drivers/import", "ridici.csv", []byte(bad), nil, true).expect(t, http.StatusSeeOther))
	res := hr.get("/drivers/import/"+first).expect(t, http.StatusOK).
		contains(t, "ridici.csv", `data-testid="import-has-errors"`, `data-testid="import-count-errors">1<`,
			`data-testid="import-count-created">2<`, `data-testid="preview-row-3"`, "Sloupec vynechat",
			"Importovat vše, nebo nic", "Importovat bezchybné řádky, ostatní vynechat", `data-testid="import-create-2"`).
		lacks(t, `hx-trigger="every`, `data-testid="import-create-3"`)
	cell := regexp.MustCompile(`(?s)data-testid="preview-cell-3-2">(.*?)</td>`).FindStringSubmatch(res.Body)
	if cell == nil || !strings.Contains(cell[1], "neni-email") || !strings.Contains(cell[1], `data-testid="preview-cell-error"`) {
		t.Errorf("row 3, column E-mail: %v", cell)
	}
	if ok := regexp.MustCompile(`(?s)data-testid="preview-cell-2-2">[^<]*<span[^>]*>jan@dopravce.test</span>\s*</td>`).MatchString(res.Body); !ok {
		t.Errorf("row 2's e-mail cell has an error or is missing")
	}
	// "Poznámka" is not known: ignored, the select says so.
	if !regexp.MustCompile(`(?s)name="field.4".*?<option value="" selected>Sloupec vynechat</option>`).MatchString(res.Body) {
		t.Errorf("the unknown column is not shown as ignored")
	}

	// confirm sends the import page's confirmation form (with its one-time
	// token) and returns the token.
	confirm := func(id string) (string, string) {
		t.Helper()
		m := formToken.FindStringSubmatch(hr.get("/drivers/import/"+id).expect(t, http.StatusOK).Body)
		if m == nil {
			t.Fatalf("import %s: no confirmation form with a token", id)
		}
		run := importAt(t, hr.post("/drivers/import/"+id+"/confirm", url.Values{"form_token": {m[1]}}).expect(t, http.StatusSeeOther))
		return run, m[1]
	}
	// All or nothing (a confirmation without a mode) changes nothing while
	// a row has an error.
	again := importAt(t, hr.post("/drivers/import/"+first+"/confirm", url.Values{"form_token": {uuid.NewString()}}).expect(t, http.StatusSeeOther))
	hr.get("/drivers/import/"+again).expect(t, http.StatusOK).
		contains(t, `data-dry-run="false"`, "se nic nezměnilo").lacks(t, `data-testid="import-done"`)
	countDrivers := func() int {
		var n int
		if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM drivers WHERE company_id = $1`, company).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := countDrivers(); n != 0 {
		t.Fatalf("%d drivers after a run with errors", n)
	}

	// The fixed file, "Poznámka" matched to the work location.
	fixed := strings.Replace(bad, "neni-email", "eva@dopravce.test", 1)
	checked := importAt(t, hr.upload("/drivers/import", "ridici.csv", []byte(fixed), nil, true).expect(t, http.StatusSeeOther))
	hr.get("/drivers/import/"+checked).expect(t, http.StatusOK).contains(t, `data-testid="import-confirm"`, `data-testid="import-count-errors">0<`)
	match := url.Values{"field.0": {"first_name"}, "field.1": {"last_name"}, "field.2": {"email"}, "field.3": {"status"}, "field.4": {"work_location"}}
	rematched := importAt(t, hr.post("/drivers/import/"+checked+"/mapping", match).expect(t, http.StatusSeeOther))
	hr.get("/drivers/import/"+rematched).expect(t, http.StatusOK).
		contains(t, `<option value="work_location" selected>Místo výkonu práce</option>`, `data-testid="import-confirm"`)

	// Two columns of one field: refused on the page, nothing started.
	match.Set("field.1", "first_name")
	hr.post("/drivers/import/"+rematched+"/mapping", match).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="import-columns-error"`, "jsou totéž pole")

	done, token := confirm(rematched)
	// The same confirmation sent again (a double click, a resend on a poor
	// connection) opens the first run and starts none.
	var runs int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM imports WHERE company_id = $1`, company).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if twice := importAt(t, hr.post("/drivers/import/"+rematched+"/confirm", url.Values{"form_token": {token}}).expect(t, http.StatusSeeOther)); twice != done {
		t.Errorf("the repeated confirmation opened import %s, want the first run %s", twice, done)
	}
	var runsAfter int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM imports WHERE company_id = $1`, company).Scan(&runsAfter); err != nil || runsAfter != runs {
		t.Errorf("imports after the repeated confirmation: %d, before %d (%v)", runsAfter, runs, err)
	}
	// Without a token: refused, nothing started.
	hr.post("/drivers/import/"+rematched+"/confirm", url.Values{}).expect(t, http.StatusBadRequest)
	hr.get("/drivers/import/"+done).expect(t, http.StatusOK).
		contains(t, `data-testid="import-done"`, "přibylo řidičů 2", `href="/drivers"`)
	var place string
	if err := env.DB.QueryRow(context.Background(), `SELECT work_location FROM drivers WHERE company_id = $1 AND email = 'eva@dopravce.test'`,
		company).Scan(&place); err != nil || place != "Praha" {
		t.Errorf("Eva's work location %q %v", place, err)
	}

	// A refused file comes back in the form: the whole page, or the form
	// alone for htmx.
	hr.upload("/drivers/import", "scan.pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\x00\x01"), nil, true).expect(t, http.StatusUnsupportedMediaType).
		contains(t, `data-testid="import-upload-error"`, "<html")
	hr.Header.Set("HX-Request", "true")
	hr.upload("/drivers/import", "prazdny.csv", []byte("Jméno;Příjmení\n"), nil, true).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="import-upload-error"`, "Soubor má řádek záhlaví, ale žádné řidiče.").lacks(t, "<html")
	hr.Header.Del("HX-Request")

	// A dispatcher and a driver get none of it.
	var driverEmail string
	if err := env.DB.QueryRow(context.Background(), `SELECT email FROM drivers WHERE company_id = $1 LIMIT 1`, company).Scan(&driverEmail); err != nil {
		t.Fatal(err)
	}
	var before int
	_ = env.DB.QueryRow(context.Background(), `SELECT count(*) FROM imports`).Scan(&before)
	for _, b := range []*browser{
		signIn(t, env, company, auth.RoleDispatcher, "dispecer@dopravce.test", "cs"),
		signIn(t, env, company, auth.RoleDriver, driverEmail, "cs"),
	} {
		b.get("/drivers").lacks(t, `href="/drivers/import"`)
		for _, path := range []string{"/drivers/import", "/drivers/import/template?format=xlsx", "/drivers/import/" + done,
			"/drivers/import/" + done + "/progress"} {
			b.get(path).expect(t, http.StatusForbidden)
		}
		b.upload("/drivers/import", "ridici.csv", []byte(fixed), nil, true).expect(t, http.StatusForbidden)
		b.post("/drivers/import/"+checked+"/confirm", nil).expect(t, http.StatusForbidden)
		b.post("/drivers/import/"+checked+"/mapping", match).expect(t, http.StatusForbidden)
	}
	var after int
	_ = env.DB.QueryRow(context.Background(), `SELECT count(*) FROM imports`).Scan(&after)
	if after != before || countDrivers() != 2 {
		t.Errorf("refused requests changed data: %d imports (was %d), %d drivers", after, before, countDrivers())
	}
}

// A file of more than 1,000 rows is queued as a job: its page shows the
// progress bar, which polls the progress fragment; once the job (run here
// as the job queue runs it) is done, the fragment is the result and polls
// no more.
func TestImportPageProgress(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Velký dopravce", "enterprise")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@velky.test", "en")
	var sb strings.Builder
	sb.WriteString("first_name,last_name,email\n")
	for i := range 1200 {
		fmt.Fprintf(&sb, "Jan,Novák%d,jan%d@velky.test\n", i, i)
	}
	id := importAt(t, hr.upload("/drivers/import", "big.csv", []byte(sb.String()), nil, true).expect(t, http.StatusSeeOther))
	hr.get("/drivers/import/"+id).expect(t, http.StatusOK).
		contains(t, `data-testid="import-progress"`, `hx-get="/drivers/import/`+id+`/progress"`, `hx-trigger="every 1s"`,
			`<progress max="100" value="0"`, "Checking 1200 rows")
	hr.Header.Set("HX-Request", "true")
	hr.get("/drivers/import/"+id+"/progress").expect(t, http.StatusOK).contains(t, `data-status="queued"`).lacks(t, "<html")

	// The job's work, on the system pool as the job queue runs it.
	jobs := imports.NewService(env.DB, drivers.NewService(env.DB, nil), fleet.NewService(env.DB, nil), 0, nil)
	if err := jobs.Run(context.Background(), company, uuid.MustParse(id)); err != nil {
		t.Fatal(err)
	}
	hr.get("/drivers/import/"+id+"/progress").expect(t, http.StatusOK).
		contains(t, `data-testid="import-result"`, `data-testid="import-count-created">1200<`, `data-testid="import-confirm"`,
			"The rows with errors and the first rows of the file: 20 of 1200.").
		lacks(t, "hx-get", "<html")
}

// The check of a file that updates drivers, in English: each updated row
// names its driver (linked) and each value old → new in words and dates
// for people; the new drivers and unchanged rows are listed; importing the
// valid rows applies them and says which row was skipped.
func TestImportPageChanges(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Changes Ltd", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@changes.test", "en")
	confirm := func(id, mode string) page {
		t.Helper()
		m := formToken.FindStringSubmatch(hr.get("/drivers/import/"+id).expect(t, http.StatusOK).Body)
		if m == nil {
			t.Fatalf("import %s: no confirmation form", id)
		}
		return hr.post("/drivers/import/"+id+"/confirm", url.Values{"form_token": {m[1]}, "mode": {mode}})
	}
	start := "first_name,last_name,email,hire_date,citizenship\nJan,Novák,jan@changes.test,2020-01-01,CZ\nEva,Malá,eva@changes.test,,SK\n"
	first := importAt(t, hr.upload("/drivers/import", "start.csv", []byte(start), nil, true).expect(t, http.StatusSeeOther))
	importAt(t, confirm(first, "all_or_nothing").expect(t, http.StatusSeeOther))
	var janID, janNumber string
	if err := env.DB.QueryRow(context.Background(), `SELECT id, internal_number FROM drivers WHERE company_id = $1 AND email = 'jan@changes.test'`,
		company).Scan(&janID, &janNumber); err != nil {
		t.Fatal(err)
	}

	file := "email,first_name,last_name,hire_date,citizenship\n" +
		"jan@changes.test,,,1. 4. 2021,SK\n" + // 2: Jan's hire date and citizenship
		"eva@changes.test,,Malá,,\n" + // 3: unchanged
		"petr@changes.test,,Dlouhý,,\n" + // 4: an error (no first name)
		"ota@changes.test,Ota,Veselý,2026-01-05,\n" // 5: a new driver
	checked := importAt(t, hr.upload("/drivers/import", "changes.csv", []byte(file), nil, true).expect(t, http.StatusSeeOther))
	res := hr.get("/drivers/import/"+checked).expect(t, http.StatusOK).
		contains(t, "What the import will change", `data-testid="import-update-2"`, `href="/drivers/`+janID+`"`,
			"Jan Novák ("+janNumber+")", "1\u00a0Jan\u00a02020", "1\u00a0Apr\u00a02021", "Czechia", "Slovakia",
			`data-testid="import-unchanged-rows"`, "rows 3", `data-testid="import-create-5"`, "Ota Veselý", "Import the valid rows, skip the rest", `data-testid="import-has-errors"`).
		lacks(t, `value="all_or_nothing" class="mt-1" required checked`)
	update := regexp.MustCompile(`(?s)data-testid="import-update-2">(.*?)</li>`).FindStringSubmatch(res.Body)
	if update == nil || !regexp.MustCompile(`(?s)Hire date.*1\x{a0}Jan\x{a0}2020.*→.*1\x{a0}Apr\x{a0}2021`).MatchString(update[1]) {
		t.Errorf("row 2's hire date is not shown old → new: %v", update)
	}

	// A mode the page never offers is refused; the valid rows are applied.
	m := formToken.FindStringSubmatch(res.Body)
	hr.post("/drivers/import/"+checked+"/confirm", url.Values{"form_token": {m[1]}, "mode": {"some"}}).expect(t, http.StatusUnprocessableEntity)
	done := importAt(t, confirm(checked, "valid_rows").expect(t, http.StatusSeeOther))
	hr.get("/drivers/import/"+done).expect(t, http.StatusOK).
		contains(t, `data-testid="import-done"`, `data-testid="import-skipped"`, "1 row with errors was skipped: row 4.",
			"What the import changed", `data-testid="import-count-updated">1<`, `data-testid="import-count-created">1<`,
			`data-testid="import-count-errors">1<`, "Skipped rows", `data-testid="import-create-5"`)
	var hire string
	if err := env.DB.QueryRow(context.Background(), `SELECT hire_date::text FROM drivers WHERE id = $1`, janID).Scan(&hire); err != nil || hire != "2021-04-01" {
		t.Errorf("Jan's hire date %s %v", hire, err)
	}
}
