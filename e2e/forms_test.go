package e2e

import (
	"context"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// TestFormsRefuseImpossibleValues: the driver form refuses a birth date in
// 2031 and the phone "+420 abc" with worded messages next to the fields
// (English, 1280 px), then saves a phone written without its prefix,
// stored in E.164 and shown grouped; the transaction form offers its
// currencies as a list, labelled with the word of its messages (Czech,
// 390 px).
func TestFormsRefuseImpossibleValues(t *testing.T) {
	app := newApp(t)
	en := app.Company(t, "Acme", "en")
	jan := fixtures.Driver(t, app.DB, en, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	edit := "/drivers/" + jan.String() + "/edit"

	page := app.SignIn(t, en, auth.RoleHRManager)
	_, err := page.Goto(app.URL + edit)
	must(t, err)
	must(t, page.Locator("#field-birth_date").Fill("2031-05-01"))
	must(t, page.Locator("#field-phone").Fill("+420 abc"))
	must(t, page.GetByTestId("save-driver").Click())
	must(t, expect.Locator(page.GetByTestId("error-birth_date")).ToHaveText("The birth date cannot be in the future."))
	must(t, expect.Locator(page.GetByTestId("error-phone")).ToHaveText(
		"The phone “+420 abc” is not a phone number: write its digits with the country code, such as +420 777 123 456."))
	must(t, expect.Locator(page.Locator("#field-phone")).ToHaveAttribute("aria-invalid", "true"))
	app.Screenshots(t, page, "forms-driver-refused")
	app.CheckA11y(t, page)
	fitsPhone(t, page)

	must(t, page.Locator("#field-birth_date").Fill("1984-02-29"))
	must(t, page.Locator("#field-phone").Fill("602 111 222"))
	must(t, page.GetByTestId("save-driver").Click())
	must(t, waitURL(page, app.URL+"/drivers/"+jan.String()))
	must(t, expect.Locator(page.Locator("main")).ToContainText("+420 602 111 222"))
	var stored string
	must(t, app.DB.QueryRow(context.Background(), `SELECT phone FROM drivers WHERE id = $1`, jan).Scan(&stored))
	if stored != "+420602111222" {
		t.Errorf("stored phone %q, want +420602111222", stored)
	}

	// Czech, on a phone: the transaction form's currency is a list.
	cs := app.Company(t, "Doprava", "cs")
	petr := fixtures.Driver(t, app.DB, cs, fixtures.Name("Petr", "Dvořák"), fixtures.Email("petr@doprava.test"))
	acc := app.SignInAt(t, phone, "/", cs, auth.RoleAccountant)
	form := "/drivers/" + petr.String() + "/finance/new"
	_, err = acc.Goto(app.URL + form)
	must(t, err)
	toCzech(t, acc, app.URL+form)
	currency := acc.Locator("#field-currency")
	must(t, expect.Locator(currency).ToHaveValue("CZK"))
	must(t, expect.Locator(acc.Locator(`label[for=field-currency]`)).ToHaveText("Měna"))
	must(t, expect.Locator(acc.Locator(`label[for=field-transaction_type]`)).ToHaveText("Typ platby"))
	_, err = currency.SelectOption(playwright.SelectOptionValues{Values: &[]string{"EUR"}})
	must(t, err)
	_, err = acc.Locator("#field-transaction_type").SelectOption(playwright.SelectOptionValues{Values: &[]string{"bonus"}})
	must(t, err)
	must(t, acc.Locator("#field-amount").Fill("150"))
	app.Screenshots(t, acc, "forms-transaction-currency")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
	must(t, acc.GetByTestId("save-transaction").Click())
	must(t, waitURL(acc, regexp.MustCompile(`/drivers/`+petr.String()+`/finance$`)))
	var cur string
	must(t, app.DB.QueryRow(context.Background(), `SELECT currency FROM finance_transactions WHERE driver_id = $1`, petr).Scan(&cur))
	if cur != "EUR" {
		t.Errorf("the transaction's currency is %q, want EUR", cur)
	}
}
