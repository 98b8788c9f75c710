package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

// api sends a request to the API as an HR manager of the company, with a
// token the identity provider signed, and decodes the JSON answer into
// out (when not nil); any status but want fails the test.
func (a *App) api(t *testing.T, company uuid.UUID, method, path string, body any, want int, out any) {
	t.Helper()
	a.apiAs(t, company, "hr_manager", "api-hr@acme.test", method, path, body, want, out)
}

// apiAs is api as another role of the company, signed in as email.
func (a *App) apiAs(t *testing.T, company uuid.UUID, role, email, method, path string, body any, want int, out any) {
	t.Helper()
	tok, err := a.OIDC.Keypair.SignJWT(jwt.MapClaims{
		"sub": uuid.NewString(), "email": email, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
		"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": role},
	})
	must(t, err)
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		must(t, err)
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.URL+path, reader)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	defer res.Body.Close()
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d", method, path, res.StatusCode, want)
	}
	if out != nil {
		must(t, json.NewDecoder(res.Body).Decode(out))
	}
}

// apiTotal asks the API how many drivers the list query finds.
func (a *App) apiTotal(t *testing.T, company uuid.UUID, query string) int {
	t.Helper()
	var body struct {
		Total *int `json:"total"`
	}
	a.api(t, company, http.MethodGet, "/api/v0/drivers?"+query, nil, http.StatusOK, &body)
	if body.Total == nil {
		t.Fatalf("API %s: no total", query)
	}
	return *body.Total
}

// shownTotal reads the total from "Drivers 1–4 of 4" / "Řidiči 1–4 z 4".
func shownTotal(t *testing.T, page playwright.Page) int {
	t.Helper()
	s := text(t, page, "[data-testid=driver-count]")
	m := regexp.MustCompile(`(\d+)\D*$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no total in %q", s)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// clippedSelects lists the filter selects that cut text off. Chromium
// keeps a select's scrollWidth equal to its clientWidth even when the
// chosen text is cut, so besides scrollWidth > clientWidth this compares
// the select with a hidden copy at its natural width (as wide as its
// longest choice): narrower than that, some choice does not fit.
func clippedSelects(t *testing.T, page playwright.Page) []any {
	t.Helper()
	res, err := page.Evaluate(`() => [...document.querySelectorAll('#driver-filters select')].flatMap(s => {
		const copy = s.cloneNode(true);
		copy.removeAttribute('id');
		copy.style.cssText = 'position:absolute;visibility:hidden;width:auto;max-width:none;min-width:0';
		s.parentNode.appendChild(copy);
		const need = copy.getBoundingClientRect().width, has = s.getBoundingClientRect().width;
		copy.remove();
		const out = [];
		if (s.scrollWidth > s.clientWidth) out.push(s.id + ' scrollWidth ' + s.scrollWidth + ' > clientWidth ' + s.clientWidth);
		if (has + 0.5 < need) out.push(s.id + ' is ' + has + 'px wide, its text needs ' + need + 'px');
		return out;
	})`)
	must(t, err)
	list, _ := res.([]any)
	return list
}

// HR's morning question in one step: "Expiring within 30 days" keeps the
// drivers with a document due from today to today+30, nearest first, and
// each row names that document with its date and days left; the count is
// the API's total for the same filter. The status words of the filter are
// those of the badges, and no filter select is cut off, in Czech, on a
// laptop or a phone.
func TestHRFindsDocumentsDueWithin30Days(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	with := func(extra map[string]int) map[string]int {
		d := ready()
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
	app.seedDrivers(t, company, []seedDriver{
		{First: "Jana", Last: "Dvořáková", Email: "jana@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"passport": 12})},
		{First: "Petr", Last: "Malý", Email: "petr@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"drivers_license": 25})},
		{First: "Ivan", Last: "Kovalenko", Email: "ivan@acme.test", Citizenship: "UA", Office: "Ostrava", Docs: with(map[string]int{"code_95": 5, "a1_eu": 20})},
		{First: "Ana", Last: "Popescu", Email: "ana@acme.test", Citizenship: "RO", Office: "Ostrava", Docs: with(map[string]int{"medical_examination": 45})},
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"passport": -4})},
		{First: "Karel", Last: "Beneš", Email: "karel@acme.test", Citizenship: "SK", Office: "Praha", Docs: ready()},
		{First: "Mihai", Last: "Ionescu", Email: "mihai@acme.test", Citizenship: "RO", Office: "Ostrava"},
	})
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–7 of 7"))

	// One choice answers the question, nearest date first.
	_, err = page.Locator("#filter-document_due_within").SelectOption(playwright.SelectOptionValues{Values: &[]string{"30"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers?document_due_within=30"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–3 of 3"))
	if got := rows(t, page); fmt.Sprint(got) != "[Ivan Kovalenko Jana Dvořáková Petr Malý]" {
		t.Errorf("due within 30 days: %v", got)
	}
	must(t, expect.Locator(page.Locator("th[aria-sort]")).ToHaveText("Next expiry"))
	must(t, expect.Locator(page.Locator("th[aria-sort]")).ToHaveAttribute("aria-sort", "ascending"))
	date := func(days int) string { return i18n.EN.Date(civil.DateOf(companyNow().AddDate(0, 0, days))) }
	for i, want := range []struct{ typ, date, days, status string }{
		{"Code 95", date(5), "5 days left", "expiring_soon"},
		{"Passport", date(12), "12 days left", "expiring_soon"},
		{"Driving licence", date(25), "25 days left", "warning"},
	} {
		cell := page.Locator("[data-testid=driver-row]").Nth(i).GetByTestId("next-expiry")
		must(t, expect.Locator(cell.GetByTestId("next-expiry-type")).ToHaveText(want.typ))
		must(t, expect.Locator(cell.GetByTestId("next-expiry-date")).ToHaveText(want.date))
		must(t, expect.Locator(cell).ToContainText(want.days))
		must(t, expect.Locator(cell).ToHaveAttribute("data-status", want.status))
	}
	if shown, api := shownTotal(t, page), app.apiTotal(t, company, "document_due_within=30"); shown != api {
		t.Errorf("the page shows %d drivers, the API's total is %d", shown, api)
	}
	app.Screenshots(t, page, "drivers-due-within-30")
	app.CheckA11y(t, page)

	// The document opens from the row.
	must(t, page.Locator("[data-testid=driver-row]").First().GetByTestId("next-expiry-type").Click())
	must(t, waitURL(page, regexp.MustCompile(`/drivers/[0-9a-f-]+/documents/[0-9a-f-]+$`)))
	must(t, expect.Locator(page.Locator("h1")).ToContainText("Code 95"))
	_, err = page.GoBack()
	must(t, err)

	// Several statuses at once, named as the badges name them.
	_, err = page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, expect.Locator(page.Locator("label:has([data-testid=docfilter-warning])")).ToContainText("Renew soon"))
	must(t, expect.Locator(page.Locator(`[data-testid=driver-row]:has-text("Petr Malý") [data-status=warning]`).First()).ToContainText("Renew soon"))
	must(t, page.GetByTestId("docfilter-expired").Check())
	must(t, waitURL(page, app.URL+"/drivers?document_status=expired"))
	must(t, page.GetByTestId("docfilter-warning").Check())
	must(t, waitURL(page, app.URL+"/drivers?document_status=expired%2Cwarning"))
	if got := rows(t, page); fmt.Sprint(got) != "[Petr Malý Ivan Kovalenko Jan Novák]" {
		t.Errorf("renew soon or expired: %v", got)
	}
	if shown, api := shownTotal(t, page), app.apiTotal(t, company, "document_status=warning,expired"); shown != 3 || shown != api {
		t.Errorf("renew soon or expired: the page shows %d drivers, the API's total is %d", shown, api)
	}

	// In Czech no select is cut off, on a laptop nor on a phone.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Řidiči"))
	for _, size := range []playwright.Size{desktop, phone} {
		must(t, page.SetViewportSize(size.Width, size.Height))
		_, err = page.Goto(app.URL + "/drivers")
		must(t, err)
		if n, _ := page.Locator("#driver-filters select").Count(); n != 5 {
			t.Fatalf("%d filter selects", n)
		}
		if clipped := clippedSelects(t, page); len(clipped) > 0 {
			t.Errorf("at %dpx these selects cut their text off: %v", size.Width, clipped)
		}
		if overflow, _ := page.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`); overflow == true {
			t.Errorf("at %dpx the page scrolls sideways", size.Width)
		}
		app.Screenshots(t, page, fmt.Sprintf("drivers-filters-cs-%d", size.Width))
	}
	// The check can fail: a select squeezed below its text is reported.
	_, err = page.Evaluate(`() => { document.querySelector('#filter-office_id').style.width = '60px' }`)
	must(t, err)
	if clipped := clippedSelects(t, page); len(clipped) != 1 {
		t.Errorf("a squeezed select was not reported: %v", clipped)
	}
}
