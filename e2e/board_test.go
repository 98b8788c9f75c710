package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	fleetsvc "github.com/konvoj/konvoj/internal/fleet"
)

// A dispatcher assigns a free driver, a lorry and a trailer from the
// readiness board and is told before saving that the trailer's technical
// inspection runs out on the Wednesday of a Monday-to-Friday trip; an admin
// uploads the renewed inspection in another browser and the board shows
// the unit ready until later without a reload; then, on a phone in Czech,
// the dispatcher changes the trailer and ends the unit.
func TestDispatcherAssignsAUnitFromTheBoard(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.seedDrivers(t, company, []seedDriver{
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: ready()},
	})
	svc, _ := app.seedServices(t, company)
	ctx := context.Background()
	seed, err := svc.Tenants.Principal(ctx, auth.Identity{Subject: "seed-dispatcher", Email: "seed.dispatcher@acme.test",
		CompanyID: company.String(), Role: auth.RoleDispatcher, FirstName: "Petr", LastName: "Seed"})
	must(t, err)
	lorry, err := svc.Fleet.CreateVehicle(ctx, seed, func(in *fleetsvc.Input) error {
		must(t, in.Set("type", "lkv"))
		return in.Set("plate_number", "1AB 2345")
	})
	must(t, err)
	app.uploadFleetDocuments(t, company, "vehicle", lorry.ID, "")
	newTrailer := func(plate string) uuid.UUID {
		tr, err := svc.Fleet.CreateTrailer(ctx, seed, func(in *fleetsvc.Input) error {
			must(t, in.Set("type", "mega"))
			return in.Set("plate_number", plate)
		})
		must(t, err)
		return tr.ID
	}
	trailer, spare := newTrailer("2AB 3456"), newTrailer("3PB 0012")
	app.uploadFleetDocuments(t, company, "trailer", trailer, "technical_inspection")
	app.uploadFleetDocuments(t, company, "trailer", spare, "")

	// The trip: next Monday to Friday; the inspection is valid through
	// its Wednesday.
	today := companyNow()
	monday := today.AddDate(0, 0, (8-int(today.Weekday()))%7)
	if !monday.After(today) {
		monday = monday.AddDate(0, 0, 7)
	}
	day := func(n int) string { return monday.AddDate(0, 0, n).Format(time.DateOnly) }
	docs, err := svc.Documents.FleetRead(ctx, seed, "trailer", trailer)
	must(t, err)
	var inspection uuid.UUID
	for _, d := range docs {
		if d.Type == "technical_inspection" {
			inspection = d.ID
			upload(t, svc, seed, d.ID, d.Type, trailer.String(), "STK-1", day(2))
		}
	}

	page := app.SignIn(t, company, auth.RoleDispatcher, Person{Email: "dana@acme.test", FirstName: "Dana", LastName: "Dvořáková"})
	must(t, expect.Locator(page.GetByTestId("board-free-drivers")).ToContainText("Jan Novák"))
	must(t, expect.Locator(page.GetByTestId("board-free-trailers")).ToContainText("2AB 3456"))
	must(t, expect.Locator(page.GetByTestId("board-count")).ToHaveText("Active units: 0"))
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("board-free-drivers").GetByTestId("free-assign").First().Click())
	must(t, waitURL(page, regexp.MustCompile(`/units/new\?driver_id=`)))
	_, err = page.GetByTestId("unit-vehicle").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"1AB 2345 · VEH-0001"}})
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("preview-now")).ToHaveAttribute("data-ready", "true"))
	_, err = page.GetByTestId("unit-trailer").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"2AB 3456 · TRL-0001"}})
	must(t, err)
	must(t, page.GetByTestId("unit-on").Fill(day(0)))
	must(t, page.GetByTestId("unit-through").Fill(day(4)))
	must(t, page.GetByTestId("unit-check").Click())
	must(t, expect.Locator(page.GetByTestId("preview-now")).ToHaveAttribute("data-ready", "true"))
	must(t, expect.Locator(page.GetByTestId("preview-trip")).ToHaveAttribute("data-ready", "false"))
	wed := monday.AddDate(0, 0, 2)
	must(t, expect.Locator(page.GetByTestId("preview-trip")).ToContainText(
		"Trailer 2AB 3456: Technical inspection runs out on Wed "+wed.Format("2 Jan 2006")))
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("unit-assign").Click())
	must(t, waitURL(page, regexp.MustCompile(`/#unit-[0-9a-f-]{36}$`)))
	row := page.GetByTestId("board-unit")
	must(t, expect.Locator(row).ToHaveCount(1))
	must(t, expect.Locator(row).ToContainText("2AB 3456"))
	must(t, expect.Locator(row.GetByTestId("unit-until")).ToContainText("Wed "+wed.Format("2 Jan 2006")))
	must(t, expect.Locator(page.GetByTestId("board-free-drivers")).ToContainText("None free."))

	// The office's admin renews the inspection in its own browser (HR
	// does not handle the fleet's documents); the board follows.
	hr := app.SignIn(t, company, auth.RoleAdmin, Person{Email: "adam@acme.test", FirstName: "Adam", LastName: "Admin"})
	_, err = hr.Goto(app.URL + "/trailers/" + trailer.String() + "/documents/" + inspection.String())
	must(t, err)
	must(t, hr.GetByTestId("upload-file").SetInputFiles([]playwright.InputFile{{Name: "stk.png", MimeType: "image/png", Buffer: photoPNG(t)}}))
	must(t, hr.GetByTestId("upload-valid_until").Fill(dateIn(700)))
	must(t, hr.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(hr.GetByTestId("upload-notice")).ToBeVisible())
	must(t, expect.Locator(page.Locator(`[data-group="ready"] [data-testid="board-unit"]`)).ToHaveCount(1))
	must(t, expect.Locator(row.GetByTestId("unit-until")).Not().ToContainText("Wed "+wed.Format("2 Jan 2006")))
	must(t, expect.Locator(row).ToHaveAttribute("data-ready", "true"))
	app.Screenshots(t, page, "board")
	app.CheckA11y(t, page)

	// On a phone, in Czech: another trailer, then the unit ends.
	ph := app.SignInAt(t, phone, "/", company, auth.RoleDispatcher, Person{Email: "dana@acme.test", FirstName: "Dana", LastName: "Dvořáková"})
	toCzech(t, ph, app.URL+"/")
	must(t, expect.Locator(ph.GetByTestId("board-count")).ToHaveText("Aktivní přepravní jednotky: 1"))
	fitsPhone(t, ph)
	app.CheckA11y(t, ph)
	must(t, ph.GetByTestId("unit-change-trailer").Click())
	must(t, waitURL(ph, regexp.MustCompile(`/units/[0-9a-f-]{36}/trailer$`)))
	_, err = ph.GetByTestId("unit-trailer").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"3PB 0012 · TRL-0002"}})
	must(t, err)
	fitsPhone(t, ph)
	app.CheckA11y(t, ph)
	must(t, ph.GetByTestId("unit-trailer-save").Click())
	must(t, waitURL(ph, regexp.MustCompile(`/#unit-[0-9a-f-]{36}$`)))
	must(t, expect.Locator(ph.GetByTestId("board-unit").GetByTestId("unit-trailer")).ToHaveText("3PB 0012"))
	must(t, ph.GetByTestId("unit-unassign").Click())
	must(t, waitURL(ph, regexp.MustCompile(`/units/[0-9a-f-]{36}/unassign$`)))
	app.CheckA11y(t, ph)
	must(t, ph.GetByTestId("confirm-unassign-button").Click())
	must(t, waitURL(ph, app.URL+"/"))
	must(t, expect.Locator(ph.GetByTestId("board-count")).ToHaveText("Aktivní přepravní jednotky: 0"))
	must(t, expect.Locator(ph.GetByTestId("board-free-drivers")).ToContainText("Jan Novák"))
}
