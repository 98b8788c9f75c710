package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// signIn is a browser signed in through the development sign-in, speaking
// the language.
func signIn(t *testing.T, env *webtest.Env, company uuid.UUID, role auth.Role, email, lang string) *browser {
	t.Helper()
	b := newBrowser(t, env.Server.URL)
	b.devSignIn(company, role, email).expect(t, http.StatusSeeOther)
	b.post("/language", url.Values{"lang": {lang}}).expect(t, http.StatusSeeOther)
	return b
}

func (b *browser) htmx(target string) *browser {
	b.Header.Set("HX-Request", "true")
	b.Header.Set("HX-Target", target)
	return b
}

func (b *browser) plain() *browser {
	b.Header.Del("HX-Request")
	b.Header.Del("HX-Target")
	return b
}

// names returns the drivers' names in the order the desktop table shows them.
func names(body string) []string {
	i := strings.Index(body, `data-testid="driver-table"`)
	if i < 0 {
		return nil
	}
	re := regexp.MustCompile(`hover:underline">([^<]+)</a>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body[i:], -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDriversList(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.HireDate("2020-03-01"))
	env.Driver(company, fixtures.Name("Petra", "Svobodová"), fixtures.Status("on_leave"))
	env.Driver(company, fixtures.Name("Ivan", "Horák"), fixtures.Status("terminated"))
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")

	page := hr.get("/drivers").expect(t, http.StatusOK).
		contains(t, "<h1", "Drivers", `href="/drivers/new"`, `name="search"`, `hx-trigger="submit, input changed delay:300ms`,
			`aria-current="page"`, "Drivers 1–3 of 3", "Missing", "Not ready", "1\u00a0Mar\u00a02020", `aria-sort="ascending"`)
	if got := names(page.Body); strings.Join(got, ",") != "Jan Novák,Petra Svobodová,Ivan Horák" {
		t.Errorf("default order (by number) %v", got)
	}

	// Filters and search in the address, as shared links carry them.
	page = hr.get("/drivers?status=on_leave,terminated").expect(t, http.StatusOK)
	if got := names(page.Body); strings.Join(got, ",") != "Petra Svobodová,Ivan Horák" {
		t.Errorf("status filter: %v", got)
	}
	page.contains(t, `<option value="on_leave" selected>`, `href="/drivers"`) // the clear link
	page = hr.get("/drivers?search=NOVAK").expect(t, http.StatusOK).contains(t, `value="NOVAK"`)
	if got := names(page.Body); strings.Join(got, ",") != "Jan Novák" {
		t.Errorf("accent-insensitive search: %v", got)
	}
	page = hr.get("/drivers?sort_by=last_name&sort_order=desc").expect(t, http.StatusOK).contains(t, `aria-sort="descending"`)
	if got := names(page.Body); strings.Join(got, ",") != "Petra Svobodová,Jan Novák,Ivan Horák" {
		t.Errorf("sorted by last name, descending: %v", got)
	}
	// The sort link of the active column turns the order; others start ascending.
	page.contains(t, `href="/drivers?sort_by=last_name"`, `href="/drivers?sort_by=hire_date"`)

	// A hand-edited address says what is wrong and still lists.
	page = hr.get("/drivers?status=retired&sort_by=salary").expect(t, http.StatusOK).
		contains(t, "The selected status is invalid.", "The selected sort by is invalid.")
	if got := names(page.Body); len(got) != 3 {
		t.Errorf("after a bad filter: %v", got)
	}

	// htmx: only the results, and the address to show.
	res := hr.htmx("driver-results").get("/drivers?search=sVoBo&status=&office_id=&citizenship=&document_status=&sort_by=&sort_order=").
		expect(t, http.StatusOK).lacks(t, "<html", `id="driver-filters"`).contains(t, `id="driver-results"`, "Petra Svobodová")
	if got := res.Header.Get("HX-Push-Url"); got != "/drivers?search=sVoBo" {
		t.Errorf("HX-Push-Url = %q", got)
	}
	if strings.Contains(res.Body, "Jan Novák") {
		t.Error("the search result holds other drivers")
	}
	// Typing on in the search box refines the search in place; the first
	// search, or a filter changed beside it, is a new entry in the history.
	for _, c := range []struct{ current, header string }{
		{"http://localhost/drivers", "HX-Push-Url"},
		{"http://localhost/drivers?search=svo", "HX-Replace-Url"},
		{"http://localhost/drivers?search=svo&page=2", "HX-Replace-Url"},
		{"http://localhost/drivers?search=svo&status=active", "HX-Push-Url"},
	} {
		hr.Header.Set("HX-Current-URL", c.current)
		res := hr.get("/drivers?search=sVoBo").expect(t, http.StatusOK)
		other := map[string]string{"HX-Push-Url": "HX-Replace-Url", "HX-Replace-Url": "HX-Push-Url"}[c.header]
		if got := res.Header.Get(c.header); got != "/drivers?search=sVoBo" || res.Header.Get(other) != "" {
			t.Errorf("from %s: %s = %q, %s = %q", c.current, c.header, got, other, res.Header.Get(other))
		}
	}
	hr.Header.Del("HX-Current-URL")
	// History restores and other htmx requests get the whole page.
	hr.plain()
	hr.Header.Set("HX-Request", "true")
	hr.Header.Set("HX-History-Restore-Request", "true")
	hr.get("/drivers?search=svobo").expect(t, http.StatusOK).contains(t, "<html", `id="driver-filters"`)
	hr.Header.Del("HX-History-Restore-Request")
	hr.plain()

	// Czech.
	hr.post("/language", url.Values{"lang": {"cs"}}).expect(t, http.StatusSeeOther)
	hr.get("/drivers").expect(t, http.StatusOK).
		contains(t, `<html lang="cs"`, "Řidiči", "Nový řidič", "Všechny stavy", "Na dovolené", "Chybí", "Nepřipraven", "1.\u00a03.\u00a02020")

	// Roles: the accountant reads without HR actions; a driver goes to its
	// own profile.
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get("/drivers").expect(t, http.StatusOK).contains(t, "Jan Novák").lacks(t, `href="/drivers/new"`)
	own := env.Driver(company, fixtures.Name("Petr", "Malý"), fixtures.Email("petr@acme.test"))
	drv := signIn(t, env, company, auth.RoleDriver, "petr@acme.test", "en")
	res = drv.get("/drivers").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/drivers/"+own.String() {
		t.Errorf("driver's list goes to %q", loc)
	}
	drv.get("/").expect(t, http.StatusOK).contains(t, `data-testid="driver-todo"`, `href="/drivers/`+own.String()+`/pay"`)

	// A driver account not linked to a record is told so.
	lost := signIn(t, env, company, auth.RoleDriver, "nobody@acme.test", "en")
	res = lost.get("/drivers").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Errorf("unlinked driver goes to %q", loc)
	}
	lost.get("/").expect(t, http.StatusOK).contains(t, "Your account is not linked to a driver record yet.", `href="/drivers"`, "My profile")
}

func TestDriversListPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	for i := 1; i <= 27; i++ {
		env.Driver(company, fixtures.Name("Driver", fmt.Sprintf("No%02d", i)))
	}
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get("/drivers").expect(t, http.StatusOK).
		contains(t, "Drivers 1–25 of 27", "Page 1 of 2", `href="/drivers?page=2"`, `hx-get="/drivers?page=2"`).lacks(t, `rel="prev"`)
	page := hr.get("/drivers?page=2").expect(t, http.StatusOK).contains(t, "Drivers 26–27 of 27", `rel="prev"`, `href="/drivers"`)
	if got := names(page.Body); len(got) != 2 || got[0] != "Driver No26" {
		t.Errorf("page 2: %v", got)
	}
	res := hr.get("/drivers?page=9&status=active").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/drivers?page=2&status=active" {
		t.Errorf("past the end: to %q", loc)
	}
}

// The create form shows the service's messages at their fields, keeps what
// was typed, in both languages; a valid form creates the driver.
func TestCreateDriver(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get("/drivers/new").expect(t, http.StatusOK).contains(t, "New driver", `name="_csrf"`, `name="first_name"`, `name="iban"`, "Slovakia")

	form := url.Values{"first_name": {"Eva"}, "last_name": {""}, "email": {"eva@acme.test"}, "status": {"active"},
		"iban": {"CZ00 0000"}, "contract_from": {"2025-05-01"}, "contract_to": {"2025-01-01"}, "contract_indefinite": {"false"}}
	hr.post("/drivers/new", form).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="error-last_name"`, "The last name field is required.", "The IBAN is not valid.",
			"The contract from must be a date before contract to.", `value="Eva"`, `aria-invalid="true"`, `aria-describedby="error-last_name"`,
			`href="#field-last_name"`)

	// htmx swaps the form alone.
	hr.htmx("driver-form").post("/drivers/new", form).expect(t, http.StatusUnprocessableEntity).
		lacks(t, "<html").contains(t, `id="driver-form"`, "The last name field is required.")
	hr.plain()

	hr.post("/language", url.Values{"lang": {"cs"}}).expect(t, http.StatusSeeOther)
	hr.post("/drivers/new", form).expect(t, http.StatusUnprocessableEntity).
		contains(t, "Vyplňte pole „Příjmení“.", "IBAN není platný", "Začátek smlouvy musí být před jejím koncem.").
		lacks(t, "The last name field is required.")

	form.Set("last_name", "Dvořáková")
	form.Set("iban", "CZ65 0800 0000 1920 0014 5399")
	form.Set("contract_to", "2026-01-01")
	form.Set("citizenship", "SK")
	res := hr.post("/drivers/new", form).expect(t, http.StatusSeeOther)
	loc := res.Header.Get("Location")
	if !strings.HasPrefix(loc, "/drivers/") {
		t.Fatalf("after create: %q", loc)
	}
	hr.get(loc).expect(t, http.StatusOK).
		contains(t, "Řidič Eva Dvořáková byl založen.", "DRV-0001", "CZ6508000000192000145399", "Slovensko", "1.\u00a05.\u00a02025")

	// The e-mail is taken now: the message sits at the e-mail field.
	hr.post("/drivers/new", form).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="error-email"`, "Tento e-mail už má jiný řidič.")

	// No token, no driver.
	hr.postRaw("/drivers/new", url.Values{"first_name": {"X"}, "last_name": {"Y"}, "email": {"x@acme.test"}}).expect(t, http.StatusForbidden)
	var n int
	if err := env.DB.QueryRow(context.Background(), "SELECT count(*) FROM drivers WHERE company_id = $1", company).Scan(&n); err != nil || n != 1 {
		t.Errorf("drivers: %d, %v", n, err)
	}

	// Not for the accountant: the 403 page, on the form and on the post.
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get("/drivers/new").expect(t, http.StatusForbidden).contains(t, "You do not have access to this")
	acc.post("/drivers/new", form).expect(t, http.StatusForbidden)
}

func TestDriverPageAndEdit(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	id := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	other := env.Driver(company, fixtures.Name("Karel", "Jiný"))
	path := "/drivers/" + id.String()

	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	page := hr.get(path).expect(t, http.StatusOK).
		contains(t, "Jan Novák", "DRV-0001", `href="`+path+`/edit"`, `href="`+path+`/delete"`, `data-testid="document-grid"`,
			"Driving licence", "Medical examination", "Personal details", "Bank account")
	if n := strings.Count(page.Body, `data-testid="document-`); n < 14 {
		t.Errorf("%d document tiles", n)
	}
	// What static/live.js fetches again on an event about this driver: the
	// page's content alone.
	hr.htmx("driver-page").get(path).expect(t, http.StatusOK).
		contains(t, `id="driver-page"`, `data-live-driver="`+id.String()+`"`, "Driving licence").lacks(t, "<html")
	hr.plain()
	hr.get("/drivers/not-a-uuid").expect(t, http.StatusNotFound)
	hr.get("/drivers/"+uuid.NewString()).expect(t, http.StatusNotFound)

	// HR edits any field.
	hr.get(path+"/edit").expect(t, http.StatusOK).contains(t, `name="first_name"`, `value="Jan"`, `name="status"`)
	hr.post(path+"/edit", url.Values{"first_name": {"Jan"}, "last_name": {"Novák"}, "phone": {"+420 777 123 456"}, "hire_date": {"31.12.2020"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, "The hire date is not a valid date.", `value="+420 777 123 456"`)
	hr.post(path+"/edit", url.Values{"last_name": {"Nováček"}, "phone": {"+420 777 123 456"}}).expect(t, http.StatusSeeOther)
	hr.get(path).contains(t, "Jan Nováček", "+420 777 123 456", "The changes were saved.")
	// Impossible values come back in words next to their fields; a phone
	// without its prefix is read in the company's country and shown
	// grouped, stored in E.164.
	hr.post(path+"/edit", url.Values{"birth_date": {"2031-05-01"}, "phone": {"+420 abc"}}).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="error-birth_date"`, "The birth date cannot be in the future.", `data-testid="error-phone"`,
			"The phone “+420 abc” is not a phone number: write its digits with the country code, such as +420 777 123 456.",
			`max="`+time.Now().In(pragueZone).Format(time.DateOnly)+`"`, `min="1900-01-01"`)
	hr.post(path+"/edit", url.Values{"phone": {"602 111 222"}}).expect(t, http.StatusSeeOther)
	hr.get(path).contains(t, "+420 602 111 222")
	if got := storedPhone(t, env, path); got != "+420602111222" {
		t.Errorf("stored phone %q, want +420602111222", got)
	}

	// The accountant reads the profile only: no actions, no documents.
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get(path).expect(t, http.StatusOK).contains(t, "Jan Nováček").
		lacks(t, path+"/edit", path+"/delete", `data-testid="document-grid"`)
	acc.get(path+"/edit").expect(t, http.StatusForbidden)
	acc.get(path+"/delete").expect(t, http.StatusForbidden)

	// The dispatcher sees document statuses, no upload and no files.
	disp := signIn(t, env, company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get(path).expect(t, http.StatusOK).contains(t, `data-testid="document-grid"`).lacks(t, path+"/edit")

	// The driver: its own record, the fields it may change.
	drv := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	drv.get("/").expect(t, http.StatusOK).contains(t, `data-testid="driver-todo"`, `href="`+path+`"`)
	drv.get(path).expect(t, http.StatusOK).contains(t, "Jan Nováček", "Edit my details", "My profile", "Please take care of these documents").
		lacks(t, path+"/delete", `href="/drivers/new"`)
	drv.get("/drivers/"+other.String()).expect(t, http.StatusForbidden)
	drv.get(path+"/edit").expect(t, http.StatusOK).contains(t, `name="phone"`, `name="iban"`, "You can change your phone").
		lacks(t, `name="first_name"`, `name="email"`, `name="status"`)
	drv.post(path+"/edit", url.Values{"phone": {"+420 601 000 001"}, "iban": {"CZ65 0800 0000 1920 0014 5399"}}).expect(t, http.StatusSeeOther)
	drv.get(path).contains(t, "+420 601 000 001")
	// Another field than its own: the service's 403, as through the API.
	drv.post(path+"/edit", url.Values{"first_name": {"Honza"}}).expect(t, http.StatusForbidden)
}

func TestDeleteDriver(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	id := env.Driver(company, fixtures.Name("Jan", "Novák"))
	path := "/drivers/" + id.String()
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get(path+"/delete").expect(t, http.StatusOK).contains(t, "Delete Jan Novák?", `action="`+path+`/delete"`, "Uploaded documents stay stored")
	hr.postRaw(path+"/delete", nil).expect(t, http.StatusForbidden)
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.post(path+"/delete", nil).expect(t, http.StatusForbidden)
	hr.get(path).expect(t, http.StatusOK)

	res := hr.post(path+"/delete", nil).expect(t, http.StatusSeeOther)
	if res.Header.Get("Location") != "/drivers" {
		t.Errorf("after delete: %q", res.Header.Get("Location"))
	}
	hr.get("/drivers").contains(t, "Driver Jan Novák was deleted.", "No drivers found")
	hr.get(path).expect(t, http.StatusNotFound)
}

// TestDriverProfilePersonalFields: the dispatcher's driver page shows no
// personal field (docs/permissions.md); the accountant's shows them.
func TestDriverProfilePersonalFields(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	id := env.Driver(company, fixtures.Name("Jan", "Novák"))
	path := "/drivers/" + id.String()
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.post(path+"/edit", url.Values{"first_name": {"Jan"}, "last_name": {"Novák"}, "rodne_cislo": {"800203/1234"},
		"iban": {"CZ6508000000192000145399"}, "registration_address": {"Vodičkova 1, Praha"}}).expect(t, http.StatusSeeOther)
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get(path).expect(t, http.StatusOK).contains(t, "800203/1234", "CZ6508000000192000145399", "Vodičkova 1, Praha", "Bank account")
	disp := signIn(t, env, company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get(path).expect(t, http.StatusOK).contains(t, "Jan Novák").
		lacks(t, "800203/1234", "CZ6508000000192000145399", "Vodičkova 1, Praha", "Bank account", "Birth")
}

// TestDriverFormRefusesNUL: a NUL or invalid UTF-8 in a form field or the
// list's search is a 422, never a 500 (docs/errors.md).
func TestDriverFormRefusesNUL(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	id := env.Driver(company, fixtures.Name("Jan", "Novák"))
	path := "/drivers/" + id.String()
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.post(path+"/edit", url.Values{"first_name": {"Jan\x00"}, "last_name": {"Novák"}}).expect(t, http.StatusUnprocessableEntity)
	hr.post(path+"/edit", url.Values{"first_name": {"Jan"}, "last_name": {"Nov\xffák"}}).expect(t, http.StatusUnprocessableEntity)
	hr.get("/drivers?search=Jan%00").expect(t, http.StatusUnprocessableEntity)
	hr.get(path).expect(t, http.StatusOK).contains(t, "Jan Novák")
}

// storedPhone is the phone column of the driver at path (/drivers/{id}).
func storedPhone(t *testing.T, env *webtest.Env, path string) string {
	t.Helper()
	var phone *string
	if err := env.DB.QueryRow(context.Background(), `SELECT phone FROM drivers WHERE id = $1`, strings.TrimPrefix(path, "/drivers/")).Scan(&phone); err != nil {
		t.Fatal(err)
	}
	if phone == nil {
		return ""
	}
	return *phone
}
