package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// HR signs in through the provider and sees the dashboard with the HR
// navigation; the language switch turns the page Czech; sign-out works.
func TestHRSignsInAndSwitchesToCzech(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})

	if got := text(t, page, "[data-testid=welcome]"); got != "Welcome, Hana Horáková" {
		t.Errorf("welcome = %q", got)
	}
	if got := text(t, page, "[data-testid=company-name]"); got != "Acme Transport" {
		t.Errorf("company = %q", got)
	}
	if got := text(t, page, "[data-testid=role]"); got != "HR manager" {
		t.Errorf("role = %q", got)
	}
	app.Screenshots(t, page, "dashboard-hr")
	app.CheckA11y(t, page)
	auditLink := navLink(t, page, "Audit log")
	if visible, _ := auditLink.IsVisible(); !visible {
		t.Error("HR does not see the audit log in the navigation")
	}
	if err := auditLink.Click(); err != nil {
		t.Fatal(err)
	}
	if err := waitURL(page, app.URL+"/audit"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, page, "h1"); got != "Audit log" {
		t.Errorf("audit heading = %q", got)
	}

	// Czech, remembered on the user.
	if err := page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click(); err != nil {
		t.Fatal(err)
	}
	if err := waitURL(page, app.URL+"/audit"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, page, "h1"); got != "Historie změn" {
		t.Errorf("Czech audit heading = %q", got)
	}
	if _, err := page.Goto(app.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if lang, _ := page.Locator("html").GetAttribute("lang"); lang != "cs" {
		t.Errorf("html lang = %q", lang)
	}
	if got := text(t, page, "[data-testid=welcome]"); got != "Vítejte, Hana Horáková" {
		t.Errorf("Czech welcome = %q", got)
	}
	if got := text(t, page, "[data-testid=role]"); got != "Personalista" {
		t.Errorf("Czech role = %q", got)
	}
	app.Screenshots(t, page, "dashboard-hr-cs")
	app.CheckA11y(t, page)

	// Sign out: back to the sign-in page, and pages need a session again.
	if err := page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Odhlásit se"}).First().Click(); err != nil {
		t.Fatal(err)
	}
	if err := waitURL(page, app.URL+"/login"); err != nil {
		t.Fatal(err)
	}
	app.Screenshots(t, page, "signed-out")
	app.CheckA11y(t, page)
	if _, err := page.Goto(app.URL + "/audit"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page.URL(), app.URL+"/login?next=") {
		t.Errorf("after sign-out /audit is at %s", page.URL())
	}
}

// An accountant sees no HR navigation and no HR actions (create, edit,
// delete, documents), and gets the 403 page on an HR URL.
func TestAccountantSeesNoHRActions(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, fleet[:2])
	page := app.SignIn(t, company, auth.RoleAccountant)

	if got := text(t, page, "[data-testid=role]"); got != "Accountant" {
		t.Errorf("role = %q", got)
	}
	if n, _ := page.Locator(`a[href="/audit"]`).Count(); n != 0 {
		t.Errorf("the accountant sees %d audit log links", n)
	}
	app.Screenshots(t, page, "dashboard-accountant")

	// Drivers: read only.
	if _, err := page.Goto(app.URL + "/drivers"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, page, "[data-testid=driver-count]"); got != "Drivers 1–2 of 2" {
		t.Errorf("accountant's list: %q", got)
	}
	if n, _ := page.GetByTestId("new-driver").Count(); n != 0 {
		t.Error("the accountant is offered a new driver")
	}
	app.Screenshots(t, page, "drivers-accountant")
	app.CheckA11y(t, page)
	if _, err := page.Goto(app.URL + "/drivers/" + ids["jan.novak@acme.test"].String()); err != nil {
		t.Fatal(err)
	}
	if got := text(t, page, "[data-testid=driver-name]"); got != "Jan Novák" {
		t.Errorf("driver page: %q", got)
	}
	for _, id := range []string{"edit-driver", "delete-driver", "document-grid", "upload-form"} {
		if n, _ := page.GetByTestId(id).Count(); n != 0 {
			t.Errorf("the accountant sees %s", id)
		}
	}
	app.Screenshots(t, page, "driver-accountant")
	app.CheckA11y(t, page)
	res, err := page.Goto(app.URL + "/drivers/new")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != http.StatusForbidden || text(t, page, "h1") != "You do not have access to this" {
		t.Errorf("/drivers/new: %d %q", res.Status(), text(t, page, "h1"))
	}
	app.Screenshots(t, page, "forbidden-new-driver")

	res, err = page.Goto(app.URL + "/audit")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != http.StatusForbidden {
		t.Errorf("/audit status %d, want 403", res.Status())
	}
	if got := text(t, page, "h1"); got != "You do not have access to this" {
		t.Errorf("403 heading = %q", got)
	}
	app.Screenshots(t, page, "forbidden")
	app.CheckA11y(t, page)
}

// A phone: the navigation folds into a menu; unknown addresses get a 404
// page that says what to do.
func TestPhoneMenuAndNotFound(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	page := app.SignIn(t, company, auth.RoleAdmin)
	if err := page.SetViewportSize(phone.Width, phone.Height); err != nil {
		t.Fatal(err)
	}
	menuNav := page.GetByRole(*playwright.AriaRoleNavigation, playwright.PageGetByRoleOptions{Name: "Main (menu)"})
	if visible, _ := menuNav.IsVisible(); visible {
		t.Error("the phone menu is open before it is tapped")
	}
	if err := page.GetByText("Menu", playwright.PageGetByTextOptions{Exact: playwright.Bool(true)}).Click(); err != nil {
		t.Fatal(err)
	}
	if visible, _ := menuNav.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Audit log"}).IsVisible(); !visible {
		t.Error("the opened phone menu does not show the audit log")
	}
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(app.Out + "/menu-open-phone.png")}); err != nil {
		t.Fatal(err)
	}
	app.CheckA11y(t, page)

	res, err := page.Goto(app.URL + "/no/such/page")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != http.StatusNotFound {
		t.Errorf("status %d, want 404", res.Status())
	}
	if got := text(t, page, "h1"); got != "Page not found" {
		t.Errorf("404 heading = %q", got)
	}
	if n, _ := page.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: "Go to the dashboard"}).Count(); n != 1 {
		t.Error("the 404 page offers no way back")
	}
	app.Screenshots(t, page, "not-found")
	app.CheckA11y(t, page)
}
