package e2e

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// HR narrows the audit log to one driver found by name: the driver's own
// changes and those of their documents show, named and linked, with the
// actions in words and each change as old → new, in English and in Czech;
// another driver's changes do not.
func TestAuditLogOfOneDriver(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: map[string]int{"passport": 400}},
		{First: "Petra", Last: "Svobodová", Email: "petra@acme.test", Citizenship: "SK", Office: "Praha", Docs: map[string]int{"passport": 300}},
	})
	jan := ids["jan@acme.test"].String()
	app.api(t, company, http.MethodPut, "/api/v0/drivers/"+jan, map[string]any{"status": "on_leave", "phone": "+420 777 000 111"}, http.StatusOK, nil)
	app.api(t, company, http.MethodPut, "/api/v0/drivers/"+ids["petra@acme.test"].String(), map[string]any{"phone": "+421 900 000 000"}, http.StatusOK, nil)
	var passport uuid.UUID
	must(t, app.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, jan).Scan(&passport))
	app.api(t, company, http.MethodPut, "/api/v0/documents/"+passport.String(), map[string]any{"number": "99001122"}, http.StatusOK, nil)

	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := page.Goto(app.URL + "/audit")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("audit-total")).ToHaveText("Entries: 5"))

	// Found by name, without the accent.
	must(t, page.GetByTestId("audit-driver").Fill("novak"))
	must(t, page.GetByTestId("audit-apply").Click())
	must(t, waitURL(page, app.URL+"/audit?driver_id="+jan))
	must(t, expect.Locator(page.GetByTestId("audit-picked-driver")).ToHaveText("Jan Novák"))
	must(t, expect.Locator(page.GetByTestId("audit-total")).ToHaveText("Entries: 3"))
	if n, _ := page.Locator(`[data-testid=audit-row]:has-text("Svobodová")`).Count(); n != 0 {
		t.Errorf("another driver's %d rows show", n)
	}
	actions, err := page.GetByTestId("audit-action").AllInnerTexts()
	must(t, err)
	// Newest first.
	// (The test records are written directly, so the log starts at the upload.)
	want := []string{"Document details changed", "Changed", "File uploaded"}
	if len(actions) != len(want) {
		t.Fatalf("actions %q", actions)
	}
	for i := range want {
		if actions[i] != want[i] {
			t.Errorf("actions %q, want %q", actions, want)
			break
		}
	}

	// The change of the driver: labelled fields, old → new, values in words.
	changed := page.Locator(`[data-testid=audit-row][data-action=updated][data-entity-type=driver]`)
	must(t, expect.Locator(changed.GetByTestId("audit-record")).ToContainText("Driver"))
	must(t, expect.Locator(changed.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Jan Novák"})).
		ToHaveAttribute("href", "/drivers/"+jan))
	status := changed.Locator(`[data-field=status]`)
	must(t, expect.Locator(status).ToHaveText(regexp.MustCompile(`^Status:\s*Active\s*→\s*On leave\s*$`)))
	must(t, expect.Locator(status.GetByTestId("audit-old")).ToHaveText("Active"))
	must(t, expect.Locator(status.GetByTestId("audit-new")).ToHaveText("On leave"))
	must(t, expect.Locator(changed.Locator(`[data-field=phone]`)).ToHaveText(regexp.MustCompile(`^Phone:\s*—\s*→\s*\+420777000111\s*$`)))

	// The document's change names the document and links to it.
	doc := page.Locator(`[data-testid=audit-row][data-action="document.updated"]`)
	must(t, expect.Locator(doc.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Passport"})).
		ToHaveAttribute("href", "/drivers/"+jan+"/documents/"+passport.String()))
	must(t, expect.Locator(doc.Locator(`[data-field=number]`)).ToHaveText(regexp.MustCompile(`^Number:\s*\S+\s*→\s*99001122\s*$`)))
	app.Screenshots(t, page, "audit-one-driver")
	app.CheckA11y(t, page)

	// Narrowed further to one kind of record.
	_, err = page.Locator("#audit-entity-type").SelectOption(playwright.SelectOptionValues{Values: &[]string{"document"}})
	must(t, err)
	must(t, page.GetByTestId("audit-apply").Click())
	if err := waitURL(page, regexp.MustCompile(`entity_type=document`)); err != nil {
		t.Fatalf("%v at %s", err, page.URL())
	}
	must(t, expect.Locator(page.GetByTestId("audit-total")).ToHaveText("Entries: 2"))
	_, err = page.Locator("#audit-entity-type").SelectOption(playwright.SelectOptionValues{Values: &[]string{""}})
	must(t, err)
	must(t, page.GetByTestId("audit-apply").Click())
	must(t, waitURL(page, app.URL+"/audit?driver_id="+jan))

	// The same in Czech.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Historie změn"))
	must(t, expect.Locator(page.GetByTestId("audit-action").First()).ToHaveText("Změněny údaje dokladu"))
	must(t, expect.Locator(changed.GetByTestId("audit-action")).ToHaveText("Změněno"))
	must(t, expect.Locator(changed.GetByTestId("audit-record")).ToContainText("Řidič"))
	must(t, expect.Locator(changed.Locator(`[data-field=status]`)).ToHaveText(regexp.MustCompile(`^Stav:\s*Aktivní\s*→\s*Na dovolené\s*$`)))
	must(t, expect.Locator(doc.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Cestovní pas"})).ToBeVisible())
	if n, _ := page.Locator(`[data-testid=audit-action]:text-matches("^[a-z_.]+$")`).Count(); n != 0 {
		t.Errorf("%d actions show as raw codes", n)
	}
	app.Screenshots(t, page, "audit-one-driver-cs")

	// Removing the driver shows everyone's changes again.
	must(t, page.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: "Zobrazit všechny řidiče"}).Click())
	must(t, waitURL(page, app.URL+"/audit"))
	must(t, expect.Locator(page.GetByTestId("audit-total")).ToHaveText("Záznamů: 5"))
}
