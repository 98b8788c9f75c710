package e2e

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// visibleBell is the header's bell as the viewport shows it (the phone
// header has its own).
func visibleBell(page playwright.Page) playwright.Locator {
	return page.Locator("[data-testid=bell]:visible")
}

// An admin finds the HR manager on the users page (filtered by role),
// deactivates her after the question, and her open browser is refused on
// its next click; in Czech on a phone the page fits the screen.
func TestAdminDeactivatesAUser(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	hana := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	admin := app.SignIn(t, company, auth.RoleAdmin, Person{Email: "adam@acme.test", FirstName: "Adam", LastName: "Novák"})

	must(t, expect.Locator(admin.Locator(`a[href="/users"]`).First()).ToHaveCount(1))
	_, err := admin.Goto(app.URL + "/users")
	must(t, err)
	_, err = admin.GetByTestId("users-role").SelectOption(playwright.SelectOptionValues{Values: &[]string{"hr_manager"}})
	must(t, err)
	must(t, admin.GetByTestId("users-apply").Click())
	must(t, waitURL(admin, app.URL+"/users?role=hr_manager"))
	row := admin.Locator(`[data-testid=user][data-email="hana@acme.test"]`)
	must(t, expect.Locator(admin.GetByTestId("user")).ToHaveCount(1))
	must(t, expect.Locator(row.GetByTestId("user-role")).ToHaveText("HR manager"))
	must(t, expect.Locator(row.GetByTestId("user-sessions")).ToHaveText("1"))
	app.Screenshots(t, admin, "users-en")
	app.CheckA11y(t, admin)

	must(t, row.GetByTestId("deactivate").Click())
	must(t, expect.Locator(admin.GetByTestId("confirm-deactivate")).ToContainText("Deactivate Hana Horáková?"))
	app.Screenshots(t, admin, "users-deactivate")
	app.CheckA11y(t, admin)
	must(t, admin.GetByTestId("confirm-deactivate-button").Click())
	must(t, waitURL(admin, app.URL+"/users?role=hr_manager"))
	must(t, expect.Locator(admin.GetByTestId("flash-success")).ToContainText("Hana Horáková is deactivated"))
	must(t, expect.Locator(row).ToHaveAttribute("data-active", "false"))
	must(t, expect.Locator(row.GetByTestId("user-sessions")).ToHaveText("0"))
	must(t, expect.Locator(row.GetByTestId("reactivate")).ToBeVisible())

	// Hana's browser: its next click is the sign-in page.
	must(t, visibleBell(hana).Click())
	must(t, waitURL(hana, regexp.MustCompile(`/login\?next=`)))

	// In Czech on a phone.
	must(t, admin.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(admin.Locator("h1")).ToHaveText("Uživatelé"))
	must(t, admin.SetViewportSize(phone.Width, phone.Height))
	must(t, expect.Locator(row.GetByTestId("user-status")).ToHaveText("Deaktivovaný"))
	fitsPhone(t, admin)
	app.Screenshots(t, admin, "users-cs")
	app.CheckA11y(t, admin)
}

// HR, on a phone in Czech, is called by the bell once a driver uploads a
// document of a type under review (after a reload: live updates come
// later), and follows the notification to the review queue.
func TestUploadForReviewRingsTheBell(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "cs")
	app.api(t, company, http.MethodPut, "/api/v0/companies/"+company.String()+"/document-rules",
		map[string]any{"rules": []map[string]any{{"document_type": "medical_examination", "requires_review": true}}}, http.StatusOK, nil)
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01",
			Docs: map[string]int{"passport": 900, "drivers_license": 1200, "tachograph_card": 700, "code_95": 1500}},
	})
	hr := app.SignInAt(t, phone, "/", company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	// The browser speaks English: HR picks Czech in the phone's menu.
	must(t, hr.Locator("[data-testid=mobile-menu] summary").Click())
	must(t, hr.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).Last().Click())
	must(t, expect.Locator(hr.Locator("html")).ToHaveAttribute("lang", "cs"))

	me := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	must(t, me.GetByTestId("todo-document").Filter(playwright.LocatorFilterOptions{HasText: "Medical examination"}).Click())
	must(t, waitURL(me, regexp.MustCompile(`/drivers/`+ids["petr.maly@acme.test"].String()+`/documents/[0-9a-f-]+$`)))
	must(t, me.GetByTestId("upload-camera").SetInputFiles([]playwright.InputFile{{Name: "IMG_2041.png", MimeType: "image/png", Buffer: photo(t, 240, 160)}}))
	must(t, me.GetByTestId("upload-valid_until").Fill(dateIn(365)))
	must(t, me.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(me.GetByTestId("review-state")).ToHaveAttribute("data-review", "pending"))

	_, err := hr.Reload()
	must(t, err)
	// The day's expiry scan may have called HR too (the missing
	// document): the bell counts at least the upload.
	must(t, expect.Locator(visibleBell(hr).GetByTestId("bell-count")).ToBeVisible())
	must(t, visibleBell(hr).Click())
	must(t, waitURL(hr, app.URL+"/notifications"))
	item := hr.GetByTestId("notification").Filter(playwright.LocatorFilterOptions{HasText: "Čeká na kontrolu"})
	must(t, expect.Locator(item).ToHaveCount(1))
	must(t, expect.Locator(item).ToContainText("Petr Malý: Lékařská prohlídka, Čeká na kontrolu"))
	must(t, expect.Locator(item).ToHaveAttribute("data-unread", "true"))
	must(t, expect.Locator(hr.GetByTestId("notification-settings")).ToContainText("Rozpory pokut a jejich výsledek"))
	fitsPhone(t, hr)
	app.Screenshots(t, hr, "bell-review-cs")
	app.CheckA11y(t, hr)
	must(t, item.Locator("a").First().Click())
	must(t, waitURL(hr, app.URL+"/document-reviews"))
	must(t, expect.Locator(hr.GetByTestId("review-item")).ToHaveCount(1))
	fitsPhone(t, hr)
}

// A driver's dispute without a reason is refused on the penalty page, whose
// address stays the page's own (a reload shows the page again); once HR
// has decided, the bell tells the driver, and the notification opens the
// penalty with the outcome.
func TestDriverFollowsTheDisputeOutcome(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01", Docs: ready()},
	})
	drv := "/drivers/" + ids["petr.maly@acme.test"].String()
	var pen struct {
		ID string `json:"id"`
	}
	app.api(t, company, http.MethodPost, "/api/v0"+drv+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "1500", "incident_date": dateIn(-2), "description": "92 km/h where 50 km/h is allowed."},
		http.StatusCreated, &pen)
	penaltyURL := app.URL + drv + "/penalties/" + pen.ID

	me := app.SignIn(t, company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	_, err := me.Goto(penaltyURL)
	must(t, err)
	must(t, me.GetByTestId("dispute-submit").Click())
	must(t, expect.Locator(me.Locator("[data-testid=dispute-form] [data-testid=field-error]")).ToBeVisible())
	must(t, waitURL(me, penaltyURL))
	app.Screenshots(t, me, "refused-form-keeps-address")
	app.CheckA11y(t, me)
	_, err = me.Reload()
	must(t, err)
	must(t, waitURL(me, penaltyURL))
	must(t, expect.Locator(me.GetByTestId("dispute-form")).ToBeVisible())

	must(t, me.GetByTestId("dispute-reason-input").Fill("The speed limit sign was hidden behind a parked lorry."))
	must(t, me.GetByTestId("dispute-submit").Click())
	must(t, waitURL(me, penaltyURL))
	must(t, expect.Locator(me.Locator("[data-testid=penalty-status] [data-penalty-status]")).ToHaveText("Disputed"))

	app.api(t, company, http.MethodPut, "/api/v0"+drv+"/penalties/"+pen.ID+"/resolve",
		map[string]any{"resolution_action": "cancel", "resolution": "The sign was hidden."}, http.StatusOK, nil)
	_, err = me.Reload()
	must(t, err)
	must(t, expect.Locator(visibleBell(me).GetByTestId("bell-count")).ToBeVisible())
	must(t, visibleBell(me).Click())
	must(t, waitURL(me, app.URL+"/notifications"))
	item := me.GetByTestId("notification").Filter(playwright.LocatorFilterOptions{HasText: "the dispute of the penalty"})
	must(t, expect.Locator(item).ToHaveCount(1))
	must(t, expect.Locator(item).ToContainText("the dispute of the penalty “Speeding”"))
	must(t, expect.Locator(item).ToContainText("The sign was hidden."))
	fitsPhone(t, me)
	app.Screenshots(t, me, "bell-dispute-outcome")
	app.CheckA11y(t, me)
	must(t, item.Locator("a").First().Click())
	must(t, waitURL(me, penaltyURL))
	must(t, expect.Locator(me.Locator("[data-testid=penalty-status] [data-penalty-status]")).ToHaveText("Cancelled"))
}
