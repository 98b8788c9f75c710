package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// A dispatcher adds a lorry from the form and finds it in the list, in
// English at 1280 px. Its other required documents valid, the dispatcher
// opens its technical inspection from the lorry's page, uploads a photo
// of the certificate and sees the lorry turn ready. The list in Czech on
// a 390 px phone is cards no wider than the screen, and so is the
// document's page, with the camera button; HR reads the vehicle without
// edit buttons.
func TestDispatcherAddsALorry(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	page := app.SignIn(t, company, auth.RoleDispatcher, Person{Email: "dana@acme.test", FirstName: "Dana", LastName: "Dvořáková"})
	_, err := page.Goto(app.URL + "/vehicles/new")
	must(t, err)
	must(t, expect.Locator(page.Locator(".fleet-pkv-only")).ToBeHidden())
	must(t, page.Locator("#field-plate_number").Fill("1AB 2345"))
	must(t, page.Locator("#field-make").Fill("Volvo"))
	must(t, page.Locator("#field-model").Fill("FH 500"))
	must(t, page.Locator("#field-tags").Fill("adr"))
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("save-vehicle").Click())
	must(t, waitURL(page, regexp.MustCompile(`/vehicles/[0-9a-f-]{36}$`)))
	vehicle := page.URL()
	must(t, expect.Locator(page.GetByTestId("fleet-plate")).ToHaveText("1AB 2345"))
	must(t, expect.Locator(page.GetByTestId("fleet-number")).ToHaveText("VEH-0001"))
	must(t, expect.Locator(page.GetByTestId("not-ready-reason")).ToHaveText("A required document is missing or expired"))
	app.CheckA11y(t, page)

	_, err = page.Goto(app.URL + "/vehicles")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("fleet-count")).ToHaveText("1–1 of 1"))
	must(t, expect.Locator(page.GetByTestId("fleet-row")).ToContainText("Volvo FH 500"))
	app.CheckA11y(t, page)

	// Every required document but the technical inspection is valid; the
	// dispatcher uploads the inspection's photo on its page.
	app.uploadFleetDocuments(t, company, "vehicle", uuid.MustParse(vehicle[strings.LastIndex(vehicle, "/")+1:]), "technical_inspection")
	_, err = page.Goto(vehicle)
	must(t, err)
	must(t, expect.Locator(page.Locator(`[data-ready="false"]`)).ToBeVisible())
	must(t, page.GetByTestId("document-technical_inspection").Click())
	must(t, waitURL(page, regexp.MustCompile(`/vehicles/[0-9a-f-]{36}/documents/[0-9a-f-]{36}$`)))
	inspection := page.URL()
	must(t, expect.Locator(page.GetByTestId("document-status")).ToContainText("Missing"))
	must(t, page.GetByTestId("upload-file").SetInputFiles([]playwright.InputFile{{Name: "stk.png", MimeType: "image/png", Buffer: photoPNG(t)}}))
	must(t, page.GetByTestId("upload-valid_until").Fill(dateIn(365)))
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(page.GetByTestId("upload-notice")).ToContainText("Version 1 was uploaded."))
	must(t, expect.Locator(page.GetByTestId("document-status")).ToContainText("Valid"))
	app.Screenshots(t, page, "vehicle-document-uploaded")
	app.CheckA11y(t, page)
	must(t, page.Locator("main a[href='"+vehicle[len(app.URL):]+"']").First().Click())
	must(t, waitURL(page, vehicle))
	must(t, expect.Locator(page.Locator(`[data-ready="true"]`)).ToContainText("Ready"))

	_, err = page.Goto(app.URL + "/vehicles")
	must(t, err)
	toCzech(t, page, app.URL+"/vehicles")
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	_, err = page.GetByTestId("filter-is_ready").SelectOption(playwright.SelectOptionValues{Values: &[]string{"true"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/vehicles?is_ready=true"))
	must(t, expect.Locator(page.GetByTestId("fleet-row")).ToContainText("Připraveno"))
	fitsPhone(t, page)
	app.Screenshots(t, page, "vehicles-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(inspection)
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("document-title")).ToHaveText("Technická kontrola (STK)"))
	must(t, expect.Locator(page.GetByText("Vyfotit")).ToBeVisible())
	fitsPhone(t, page)
	app.Screenshots(t, page, "vehicle-document-cs")
	app.CheckA11y(t, page)

	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err = hr.Goto(vehicle)
	must(t, err)
	must(t, expect.Locator(hr.GetByTestId("fleet-plate")).ToHaveText("1AB 2345"))
	must(t, expect.Locator(hr.GetByTestId("edit-vehicle")).ToHaveCount(0))
	must(t, expect.Locator(hr.GetByTestId("delete-vehicle")).ToHaveCount(0))
}

// uploadFleetDocuments makes every document of a vehicle or a trailer
// (holderType) valid for a year, but the type except and the registration
// certificate (which has no end of validity), uploading as a dispatcher.
func (a *App) uploadFleetDocuments(t *testing.T, company uuid.UUID, holderType string, id uuid.UUID, except string) {
	t.Helper()
	svc, _ := a.seedServices(t, company)
	ctx := context.Background()
	dispatcher, err := svc.Tenants.Principal(ctx, auth.Identity{Subject: "seed-dispatcher", Email: "seed.dispatcher@acme.test",
		CompanyID: company.String(), Role: auth.RoleDispatcher, FirstName: "Petr", LastName: "Seed"})
	must(t, err)
	docs, err := svc.Documents.FleetRead(ctx, dispatcher, holderType, id)
	must(t, err)
	for _, doc := range docs {
		if doc.Type != except && doc.Type != "registration_certificate" {
			upload(t, svc, dispatcher, doc.ID, doc.Type, id.String(), "E2E-"+doc.Type[:2], dateIn(365))
		}
	}
}
