package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Documents without traps. HR, in English at 1280 px: a work permit
// limited by a residence permit that runs out sooner shows the residence
// permit's date, its days left and its badge, naming it; renewing the
// travel insurance asks for the new policy's number and dates in empty
// fields, and the history then shows each version's own. An admin, in
// Czech at 390 px: the home page offers to have drivers' uploads checked;
// a rule is made "required for" drivers with a tag by choosing it; the
// offer's one button turns review on for every type and goes away.
func TestDocumentsWithoutTraps(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Olena", Last: "Koval", Email: "olena.koval@acme.test", Citizenship: "UA", Office: "Praha", Hired: "2024-03-01",
			Docs: map[string]int{"work_permit": 279, "residence_permit": 20, "travel_insurance": 5}},
	})
	olena := ids["olena.koval@acme.test"]
	app.api(t, company, http.MethodPut, "/api/v0/drivers/"+olena.String(), map[string]any{"tags": []string{"adr"}}, http.StatusOK, nil)
	today := civil.DateOf(companyNow())

	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := hr.Goto(app.URL + "/drivers/" + olena.String())
	must(t, err)
	card := hr.GetByTestId("document-work_permit")
	must(t, expect.Locator(card).ToHaveAttribute("data-status", "warning"))
	must(t, expect.Locator(card).ToContainText("Renew soon"))
	must(t, expect.Locator(card.GetByTestId("valid-until")).ToHaveText(i18n.EN.Date(today.AddDays(20))))
	must(t, expect.Locator(card.GetByTestId("limited-by")).ToHaveText("Limited by Residence permit"))
	must(t, expect.Locator(card.GetByTestId("days-left")).ToHaveText("20 days left"))
	app.Screenshots(t, hr, "documents-capped-card")
	app.CheckA11y(t, hr)
	fitsPhone(t, hr)

	// The travel insurance's renewal: empty fields for the new policy.
	must(t, hr.GetByTestId("document-travel_insurance").Click())
	must(t, waitURL(hr, regexp.MustCompile(`/documents/[0-9a-f-]+$`)))
	must(t, expect.Locator(hr.GetByTestId("upload-renewal")).ToBeVisible())
	for _, field := range []string{"upload-number", "upload-valid_from", "upload-valid_until"} {
		must(t, expect.Locator(hr.GetByTestId(field)).ToHaveValue(""))
	}
	newUntil := dateIn(365)
	must(t, hr.GetByTestId("upload-file").SetInputFiles([]playwright.InputFile{{Name: "policy-2027.pdf", MimeType: "application/pdf",
		Buffer: []byte("%PDF-1.7\n% the renewed travel insurance\n")}}))
	must(t, hr.GetByTestId("upload-number").Fill("POL-2027"))
	must(t, hr.GetByTestId("upload-valid_until").Fill(newUntil))
	app.Screenshots(t, hr, "documents-renewal-form")
	app.CheckA11y(t, hr)
	must(t, hr.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(hr.GetByTestId("upload-notice")).ToContainText("Version 2 was uploaded."))
	v2, v1 := hr.GetByTestId("version-details-2"), hr.GetByTestId("version-details-1")
	must(t, expect.Locator(v2.GetByTestId("version-number")).ToHaveText("POL-2027"))
	must(t, expect.Locator(v2.GetByTestId("version-valid-from")).ToHaveText("—"))
	must(t, expect.Locator(v2.GetByTestId("version-valid-until")).ToHaveText(i18n.EN.Date(today.AddDays(365))))
	must(t, expect.Locator(v1.GetByTestId("version-number")).ToHaveText(fmt.Sprintf("tr-%d", 1001)))
	must(t, expect.Locator(v1.GetByTestId("version-valid-until")).ToHaveText(i18n.EN.Date(today.AddDays(5))))
	must(t, expect.Locator(hr.GetByTestId("document-number")).ToHaveText("POL-2027"))
	app.Screenshots(t, hr, "documents-version-history")
	app.CheckA11y(t, hr)
	fitsPhone(t, hr)

	// An admin on a phone, in Czech: the offer on the home page.
	admin := app.SignInAt(t, phone, "/", company, auth.RoleAdmin, Person{Email: "adam@acme.test", FirstName: "Adam", LastName: "Admin"})
	toCzech(t, admin, app.URL+"/")
	offer := admin.GetByTestId("review-offer")
	must(t, expect.Locator(offer).ToContainText("Má kancelář kontrolovat doklady nahrané řidiči?"))
	app.Screenshots(t, admin, "documents-review-offer-cs")
	app.CheckA11y(t, admin)
	fitsPhone(t, admin)

	// A rule by choices: the ADR certificate, required for drivers tagged adr.
	_, err = admin.Goto(app.URL + "/document-rules")
	must(t, err)
	must(t, admin.Locator("#rule-required-adr_certificate").Check())
	_, err = admin.Locator("#rule-required_for-adr_certificate").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"Řidiči se štítkem „adr“"}})
	must(t, err)
	must(t, admin.GetByTestId("save-rules").Click())
	must(t, waitURL(admin, app.URL+"/document-rules"))
	must(t, expect.Locator(admin.Locator("#rule-required_for-adr_certificate")).ToHaveValue("tag:adr"))
	must(t, expect.Locator(admin.Locator("#rule-required-adr_certificate")).ToBeChecked())
	app.Screenshots(t, admin, "documents-rules-by-choice-cs")
	app.CheckA11y(t, admin)
	fitsPhone(t, admin)

	// The offer's one button: review on for every type, the offer gone.
	must(t, admin.GetByTestId("review-offer-accept").Click())
	must(t, waitURL(admin, app.URL+"/document-rules"))
	must(t, expect.Locator(admin.GetByTestId("review-offer")).ToHaveCount(0))
	must(t, expect.Locator(admin.Locator("#rule-requires_review-passport")).ToBeChecked())
	must(t, expect.Locator(admin.Locator("#rule-requires_review-travel_insurance")).ToBeChecked())
	must(t, expect.Locator(admin.GetByText("Doklady všech typů nahrané řidiči teď čekají na kontrolu.")).ToBeVisible())
	app.Screenshots(t, admin, "documents-review-on-cs")
	app.CheckA11y(t, admin)
	fitsPhone(t, admin)
	_, err = admin.Goto(app.URL + "/")
	must(t, err)
	must(t, expect.Locator(admin.GetByTestId("review-offer")).ToHaveCount(0))
}
