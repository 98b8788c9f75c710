package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// Signed in twice as the same person (two browsers), the first ends the
// other's session from the signed-in devices page; the other browser's next
// click lands on the sign-in page.
func TestEndAnotherSession(t *testing.T) {
	app := newDevApp(t)
	company := app.Company(t, "Acme Transport", "en")
	signIn := func() playwright.Page {
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
		return page
	}
	mine, other := signIn(), signIn()

	// The navigation's settings link to the page.
	must(t, navLink(t, mine, "Signed-in devices").Click())
	must(t, waitURL(mine, app.URL+"/sessions"))
	sessions := mine.GetByTestId("session")
	must(t, expect.Locator(sessions).ToHaveCount(2))
	must(t, expect.Locator(mine.Locator(`[data-testid=session][data-current=true]`).GetByTestId("this-device")).ToHaveText("This device"))
	must(t, expect.Locator(mine.Locator(`[data-testid=session][data-current=true]`)).ToContainText("Chrome on Linux"))
	app.Screenshots(t, mine, "sessions-en")
	app.CheckA11y(t, mine)

	must(t, mine.Locator(`[data-testid=session][data-current=false]`).GetByTestId("end-session").Click())
	must(t, expect.Locator(mine.GetByTestId("flash-success")).ToContainText("The session was ended."))
	must(t, expect.Locator(mine.GetByTestId("session")).ToHaveCount(1))
	must(t, expect.Locator(mine.GetByTestId("no-other-sessions")).ToBeVisible())

	// The other browser still shows the dashboard; its next step is the
	// sign-in page, and the first browser is still signed in.
	must(t, other.GetByTestId("bell").First().Click())
	must(t, waitURL(other, app.URL+"/login?next=%2Fnotifications"))
	_, err := mine.Reload()
	must(t, err)
	must(t, waitURL(mine, app.URL+"/sessions"))
}
