package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// A dispatcher chooses trailers on the imports page, checks 10 trailers
// from a Czech CSV (semicolons, UTF-8 with a byte order mark) and imports
// them: the result says 10 were created. Once in English at 1280 px, then,
// on the same signed-in page, 10 more in Czech on a 390 px phone, where no
// screen of the import is wider than the phone; every screen is checked
// with axe-core (at both widths).
func TestDispatcherImportsTrailers(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Dopravce návěsy", "cs")
	page := app.SignInAt(t, desktop, "/", company, auth.RoleDispatcher, Person{Email: "dana@navesy.test", FirstName: "Dana", LastName: "Malá"})
	for pass, c := range []struct {
		lang string
		size playwright.Size
	}{{"en", desktop}, {"cs", phone}} {
		if c.lang == "cs" {
			must(t, page.SetViewportSize(c.size.Width, c.size.Height))
			toCzech(t, page, page.URL())
		}
		_, err := page.Goto(app.URL + "/vehicles/import")
		must(t, err)
		must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", c.lang))
		must(t, page.GetByTestId("import-kind-trailers").Click())
		must(t, waitURL(page, func(u string) bool { return u == app.URL+"/trailers/import" }))
		must(t, expect.Locator(page.GetByTestId("import-kind-trailers")).ToHaveAttribute("aria-current", "page"))
		if c.lang == "cs" {
			fitsPhone(t, page)
		}
		app.CheckA11y(t, page)
		var sb strings.Builder
		sb.WriteString("\ufeffSPZ;Typ;Stav;Značka;Chlazení;Nejnižší teplota (°C);Nejvyšší teplota (°C)\r\n")
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&sb, "%dNV %04d;Chladírenský;Aktivní;Krone;Ano;-25;12,5\r\n", 1+i%9, 100*pass+i)
		}
		must(t, page.GetByTestId("import-file").SetInputFiles([]playwright.InputFile{{Name: "návěsy.csv", MimeType: "text/csv", Buffer: []byte(sb.String())}}))
		must(t, page.GetByTestId("import-check").Click())
		must(t, waitURL(page, func(u string) bool { return u != app.URL+"/trailers/import" }))
		must(t, expect.Locator(page.GetByTestId("import-count-created")).ToHaveText("10"))
		if c.lang == "cs" {
			fitsPhone(t, page)
		}
		app.Screenshots(t, page, "trailers-import-checked-"+c.lang)
		app.CheckA11y(t, page)
		checked := page.URL()
		must(t, page.GetByTestId("import-confirm").Click())
		must(t, waitURL(page, func(u string) bool { return u != checked }))
		must(t, expect.Locator(page.GetByTestId("import-done")).ToBeVisible())
		must(t, expect.Locator(page.GetByTestId("import-count-created")).ToHaveText("10"))
		if c.lang == "cs" {
			fitsPhone(t, page)
		}
		app.CheckA11y(t, page)
	}
	var n int
	must(t, app.DB.QueryRow(context.Background(), `SELECT count(*) FROM trailers WHERE company_id = $1 AND has_refrigeration`, company).Scan(&n))
	if n != 20 {
		t.Errorf("%d trailers, want 20", n)
	}
}
