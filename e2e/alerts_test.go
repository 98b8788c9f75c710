package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
)

// HR sees the bell's unread count after the daily scan, opens the
// notifications, marks them read, and edits the document rules with the
// service's message inline; in English and in Czech.
func TestAlertsBellNotificationsAndRules(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.seedDrivers(t, company, []seedDriver{
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: map[string]int{"passport": 40, "drivers_license": 400}},
	})
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})

	// The day's scan: the passport is in its lead window (90 days), three
	// required documents are missing.
	loc, err := time.LoadLocation("Europe/Prague")
	must(t, err)
	_, err = alerts.NewScanner(app.DB, app.URL).Scan(context.Background(), company, civil.DateOf(time.Now().In(loc)), nil)
	must(t, err)
	_, err = page.Goto(app.URL + "/")
	must(t, err)
	bell := page.GetByTestId("bell").First()
	must(t, expect.Locator(page.GetByTestId("bell-count").First()).ToHaveText("4"))
	must(t, expect.Locator(bell).ToHaveAttribute("aria-label", "Notifications: 4 unread"))
	must(t, bell.Click())
	must(t, waitURL(page, app.URL+"/notifications"))
	must(t, expect.Locator(page.GetByTestId("notification")).ToHaveCount(4))
	must(t, expect.Locator(page.GetByTestId("notifications")).ToContainText("Jan Novák: Passport, Renewal due"))
	app.Screenshots(t, page, "notifications-en")
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("read-all").Click())
	must(t, expect.Locator(page.GetByTestId("bell-count")).ToHaveCount(0))
	must(t, expect.Locator(page.Locator(`[data-testid=notification][data-unread=true]`)).ToHaveCount(0))

	// The rules page: a refused value comes back in its row.
	_, err = page.Goto(app.URL + "/document-rules")
	must(t, err)
	must(t, expect.Locator(page.Locator(`input[name="lead_days.passport"]`)).ToHaveValue("90"))
	app.Screenshots(t, page, "document-rules-en")
	app.CheckA11y(t, page)
	must(t, page.Locator(`input[name="lead_days.passport"]`).Fill("-5"))
	must(t, page.GetByTestId("save-rules").Click())
	must(t, expect.Locator(page.GetByTestId("rule-error-passport")).ToContainText("whole number from 0 to 730"))
	must(t, page.Locator(`input[name="lead_days.passport"]`).Fill("120"))
	must(t, page.GetByTestId("save-rules").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("Document rules saved."))
	must(t, expect.Locator(page.Locator(`input[name="lead_days.passport"]`)).ToHaveValue("120"))

	// Czech.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Pravidla dokladů"))
	app.Screenshots(t, page, "document-rules-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/notifications")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("notifications")).ToContainText("Jan Novák: Cestovní pas, Blíží se obnova"))
	app.Screenshots(t, page, "notifications-cs")
	app.CheckA11y(t, page)
}

// A newcomer under `make run` (development sign-in, no SMTP server) signs
// in as HR, the day's scan writes the e-mails, and the notifications page
// leads to the development outbox, which shows the HR digest and the
// driver's own e-mail, and opens the HTML part.
func TestDevOutboxShowsTheEmails(t *testing.T) {
	app := newDevApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.seedDrivers(t, company, []seedDriver{
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: map[string]int{"passport": 40, "drivers_license": 400}},
	})
	page := app.NewPage(t)
	_, err := page.Goto(app.URL + "/auth/dev")
	must(t, err)
	custom := page.Locator(`form:has(#dev-email)`)
	_, err = custom.Locator("#dev-company").SelectOption(playwright.SelectOptionValues{Values: &[]string{company.String()}})
	must(t, err)
	_, err = custom.Locator("#dev-role").SelectOption(playwright.SelectOptionValues{Values: &[]string{"hr_manager"}})
	must(t, err)
	must(t, custom.Locator("#dev-email").Fill("hana@acme.test"))
	must(t, custom.Locator(`button[type="submit"]`).Click())
	must(t, waitURL(page, app.URL+"/"))

	loc, err := time.LoadLocation("Europe/Prague")
	must(t, err)
	_, err = alerts.NewScanner(app.DB, app.URL).Scan(context.Background(), company, civil.DateOf(time.Now().In(loc)), nil)
	must(t, err)

	_, err = page.Goto(app.URL + "/notifications")
	must(t, err)
	must(t, page.GetByTestId("dev-outbox-link").Click())
	must(t, waitURL(page, app.URL+"/dev/outbox"))
	// One digest per admin and HR manager of the company (hana among them),
	// one e-mail to the driver.
	digest := page.Locator(`[data-testid=outbox-email][data-kind=digest]`, playwright.PageLocatorOptions{HasText: "hana@acme.test"})
	must(t, expect.Locator(digest).ToHaveCount(1))
	must(t, expect.Locator(digest.GetByTestId("outbox-subject")).ToContainText("Acme Transport"))
	must(t, expect.Locator(page.Locator(`[data-testid=outbox-email][data-kind=driver_alert] [data-testid=outbox-recipient]`)).ToHaveText("jan@acme.test"))
	must(t, digest.Locator("summary").Click())
	must(t, expect.Locator(digest.GetByTestId("outbox-text")).ToContainText("Jan Novák"))
	app.Screenshots(t, page, "dev-outbox-en")
	app.CheckA11y(t, page)

	popup, err := page.ExpectPopup(func() error {
		return digest.GetByTestId("outbox-html").Click()
	})
	must(t, err)
	must(t, expect.Locator(popup.Locator("body")).ToContainText("Jan Novák"))
}
