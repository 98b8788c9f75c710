package e2e

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// streamOpen waits until the page's live-update stream is open
// (static/live.js marks the page), so that what happens next reaches it.
func streamOpen(t *testing.T, page playwright.Page) {
	t.Helper()
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("data-live", "open"))
}

// Pages update live (docs/live-updates.md): HR's bell and review queue
// show a driver's upload, the driver's page in another tab HR's approval,
// and the accountant's approval queue drops a row a colleague approved,
// without a reload; while the stream is cut the
// header says it reconnects, and stops once it is back.
func TestPagesUpdateLive(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.api(t, company, http.MethodPut, "/api/v0/companies/"+company.String()+"/document-rules",
		map[string]any{"rules": []map[string]any{{"document_type": "medical_examination", "requires_review": true}}}, http.StatusOK, nil)
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01",
			Docs: map[string]int{"passport": 900, "drivers_license": 1200, "tachograph_card": 700, "code_95": 1500}},
	})
	petr := "/api/v0/drivers/" + ids["petr.maly@acme.test"].String()
	var txs []string
	for _, amount := range []string{"30000.00", "2000.00"} {
		var tx struct {
			ID string `json:"id"`
		}
		app.api(t, company, http.MethodPost, petr+"/finance", map[string]any{"transaction_type": "bonus", "amount": amount,
			"transaction_date": dateIn(0)}, http.StatusCreated, &tx)
		txs = append(txs, tx.ID)
	}

	// HR waits on the review queue.
	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := hr.Goto(app.URL + "/document-reviews")
	must(t, err)
	must(t, expect.Locator(hr.GetByTestId("review-empty")).ToBeVisible())
	streamOpen(t, hr)
	// The day's expiry scan may have called HR already.
	unread := 0
	if n, _ := visibleBell(hr).GetByTestId("bell-count").Count(); n > 0 {
		s, err := visibleBell(hr).GetByTestId("bell-count").TextContent()
		must(t, err)
		unread, err = strconv.Atoi(s)
		must(t, err)
	}

	// The driver uploads on the phone.
	me := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	must(t, me.GetByTestId("todo-document").Filter(playwright.LocatorFilterOptions{HasText: "Medical examination"}).Click())
	must(t, waitURL(me, regexp.MustCompile(`/documents/[0-9a-f-]+$`)))
	must(t, me.GetByTestId("upload-camera").SetInputFiles([]playwright.InputFile{{Name: "IMG_2041.png", MimeType: "image/png", Buffer: photo(t, 240, 160)}}))
	must(t, me.GetByTestId("upload-valid_until").Fill(dateIn(365)))
	must(t, me.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(me.GetByTestId("review-state")).ToHaveAttribute("data-review", "pending"))

	// HR's page shows it without a reload: the queue and the bell.
	must(t, expect.Locator(hr.GetByTestId("review-item")).ToHaveCount(1))
	must(t, expect.Locator(hr.GetByTestId("review-item").Locator("h2")).ToHaveText("Medical examination of Petr Malý, version 1"))
	must(t, expect.Locator(visibleBell(hr).GetByTestId("bell-count")).ToHaveText(strconv.Itoa(unread+1)))
	if u := hr.URL(); u != app.URL+"/document-reviews" {
		t.Errorf("HR's page moved to %s", u)
	}

	// HR approves in the queue; the driver's page, open in another tab,
	// shows the document valid without a reload.
	tab, err := hr.Context().NewPage()
	must(t, err)
	_, err = tab.Goto(app.URL + "/drivers/" + ids["petr.maly@acme.test"].String())
	must(t, err)
	medical := tab.GetByTestId("document-medical_examination")
	must(t, expect.Locator(medical).ToHaveAttribute("data-status", "no_data"))
	streamOpen(t, tab)
	must(t, hr.GetByTestId("review-approve").Click())
	must(t, expect.Locator(hr.GetByTestId("review-empty")).ToBeVisible())
	must(t, expect.Locator(medical).ToHaveAttribute("data-status", "valid"))

	// The accountant's queue drops the row a colleague approves.
	acc := app.SignIn(t, company, auth.RoleAccountant, Person{Email: "adam@acme.test", FirstName: "Adam", LastName: "Účetní"})
	_, err = acc.Goto(app.URL + "/finance")
	must(t, err)
	rows := acc.GetByTestId("queue-row")
	must(t, expect.Locator(rows).ToHaveCount(2))
	streamOpen(t, acc)
	app.api(t, company, http.MethodPut, petr+"/finance/"+txs[0], map[string]any{"status": "approved"}, http.StatusOK, nil)
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(rows).ToHaveAttribute("data-id", txs[1]))

	// The server gone: "Reconnecting…" until it is back. Its first answers
	// are not a stream (a proxy's 502), so the browser gives up and
	// live.js opens the stream again later, and fetches the queue again
	// for what it missed meanwhile.
	status := acc.Locator("[data-testid=live-status]")
	must(t, expect.Locator(status).ToBeHidden())
	must(t, acc.Route("**/events", func(r playwright.Route) {
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(http.StatusBadGateway)})
	}))
	app.Kill(t)
	must(t, expect.Locator(status).ToBeVisible())
	must(t, expect.Locator(status).ToHaveText("Reconnecting…"))
	app.Restart(t)
	app.api(t, company, http.MethodPut, petr+"/finance/"+txs[1], map[string]any{"status": "approved"}, http.StatusOK, nil)
	must(t, expect.Locator(status).ToBeVisible())
	must(t, acc.Unroute("**/events"))
	must(t, expect.Locator(status).ToBeHidden(playwright.LocatorAssertionsToBeHiddenOptions{Timeout: playwright.Float(30000)}))
	streamOpen(t, acc)
	must(t, expect.Locator(acc.GetByTestId("finance-empty")).ToBeVisible())
}
