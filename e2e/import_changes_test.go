package e2e

import (
	"context"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// HR checks a file that updates a driver: the check names the driver and
// shows his hire date old → new; the file's one bad row is skipped by
// "import the valid rows", which applies the others and says which row it
// skipped. In English at 1280 px and in Czech at 390 px (no page wider
// than the phone); every screen photographed and checked with axe-core.
func TestImportShowsChanges(t *testing.T) {
	app := newApp(t)
	for _, c := range []struct {
		lang     string
		size     playwright.Size
		old, new *regexp.Regexp
	}{
		{"en", desktop, regexp.MustCompile(`^1\s+Jan\s+2020$`), regexp.MustCompile(`^1\s+Apr\s+2021$`)},
		{"cs", phone, regexp.MustCompile(`^1\.\s+1\.\s+2020$`), regexp.MustCompile(`^1\.\s+4\.\s+2021$`)},
	} {
		company := app.Company(t, "Dopravce "+c.lang, c.lang)
		jan := fixtures.Driver(t, app.DB, company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@"+c.lang+".test"),
			fixtures.HireDate("2020-01-01"))
		page := app.SignInAt(t, c.size, "/", company, auth.RoleHRManager, Person{Email: "hana@" + c.lang + ".test", FirstName: "Hana", LastName: "Nová"})
		if c.lang == "cs" {
			toCzech(t, page, app.URL+"/")
		}
		_, err := page.Goto(app.URL + "/drivers/import")
		must(t, err)
		file := "email,first_name,last_name,hire_date\n" +
			"jan@" + c.lang + ".test,,,1. 4. 2021\n" + // 2: Jan's hire date
			"petr@" + c.lang + ".test,,Dlouhý,\n" + // 3: no first name
			"ota@" + c.lang + ".test,Ota,Veselý,\n" // 4: a new driver
		must(t, page.GetByTestId("import-file").SetInputFiles([]playwright.InputFile{{Name: "drivers.csv", MimeType: "text/csv", Buffer: []byte(file)}}))
		must(t, page.GetByTestId("import-check").Click())
		must(t, waitURL(page, func(u string) bool { return u != app.URL+"/drivers/import" }))

		update := page.GetByTestId("import-update-2")
		must(t, expect.Locator(update.GetByTestId("import-update-driver")).ToContainText("Jan Novák"))
		must(t, expect.Locator(update.GetByTestId("import-update-driver")).ToHaveAttribute("href", "/drivers/"+jan.String()))
		must(t, expect.Locator(update.GetByTestId("import-old")).ToHaveText(c.old))
		must(t, expect.Locator(update.GetByTestId("import-new")).ToHaveText(c.new))
		must(t, expect.Locator(page.GetByTestId("import-create-4")).ToContainText("Ota Veselý"))
		must(t, expect.Locator(page.GetByTestId("preview-row-3")).ToBeVisible())
		app.Screenshots(t, page, "import-changes-"+c.lang)
		app.CheckA11y(t, page)
		fitsPhone(t, page)

		checked := page.URL()
		must(t, page.GetByTestId("import-mode-valid").Check())
		must(t, page.GetByTestId("import-confirm").Click())
		must(t, waitURL(page, func(u string) bool { return u != checked }))
		must(t, expect.Locator(page.GetByTestId("import-done")).ToBeVisible())
		must(t, expect.Locator(page.GetByTestId("import-skipped")).ToContainText("3"))
		must(t, expect.Locator(page.GetByTestId("import-count-created")).ToHaveText("1"))
		must(t, expect.Locator(page.GetByTestId("import-count-updated")).ToHaveText("1"))
		must(t, expect.Locator(page.GetByTestId("import-update-2").GetByTestId("import-new")).ToHaveText(c.new))
		app.Screenshots(t, page, "import-valid-rows-"+c.lang)
		app.CheckA11y(t, page)
		fitsPhone(t, page)

		var hire string
		var ota, petr int
		must(t, app.DB.QueryRow(context.Background(), `SELECT
				(SELECT hire_date::text FROM drivers WHERE id = $2),
				(SELECT count(*) FROM drivers WHERE company_id = $1 AND email = 'ota@' || $3 || '.test'),
				(SELECT count(*) FROM drivers WHERE company_id = $1 AND email = 'petr@' || $3 || '.test')`, company, jan, c.lang).
			Scan(&hire, &ota, &petr))
		if hire != "2021-04-01" || ota != 1 || petr != 0 {
			t.Errorf("%s: Jan's hire date %s, %d Ota, %d Petr; want 2021-04-01, 1, 0", c.lang, hire, ota, petr)
		}
	}
}
