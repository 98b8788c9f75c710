package e2e

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"
)

// The first five minutes of `make run`: the demo company seeded (twice, as
// every later run does), then every button of the development sign-in page
// signs in as its seeded person, on the role's landing page, in the
// person's language, without making a second user.
func TestDemoSignInButtons(t *testing.T) {
	app := newDevApp(t)
	ctx := context.Background()
	var company uuid.UUID
	for run := 1; run <= 2; run++ {
		cmd := exec.Command(shared.binary, "seed-demo")
		cmd.Env = app.Env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("seed-demo run %d: %v\n%s", run, err, out)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		if company, err = uuid.Parse(first); err != nil {
			t.Fatalf("seed-demo run %d printed %q first, not the company id", run, first)
		}
	}
	var janID uuid.UUID
	if err := app.DB.QueryRow(ctx, `SELECT id FROM drivers WHERE company_id = $1 AND email = 'jan.novak@demo-transport.cz'`, company).Scan(&janID); err != nil {
		t.Fatal(err)
	}

	people := []struct {
		email, name, role, landing, heading string
	}{
		// The company and the office staff speak Czech; the demo driver
		// reads English.
		{"admin@demo-transport.cz", "Alena Marková", "Administrátor", "/", "Vítejte, Alena Marková"},
		{"hr@demo-transport.cz", "Hana Růžičková", "Personalista", "/", "Vítejte, Hana Růžičková"},
		{"ucetni@demo-transport.cz", "Petra Šimková", "Účetní", "/", "Vítejte, Petra Šimková"},
		{"dispecink@demo-transport.cz", "Roman Kříž", "Dispečer", "/", "Vítejte, Roman Kříž"},
		{"jan.novak@demo-transport.cz", "Jan Novák", "Driver", "/", "Welcome, Jan Novák"},
	}
	for round := 1; round <= 2; round++ {
		for _, p := range people {
			page := app.NewPage(t)
			if _, err := page.Goto(app.URL + "/auth/dev"); err != nil {
				t.Fatal(err)
			}
			button := page.Locator(`form:has(input[name="email"][value="` + p.email + `"]) button`)
			if err := button.Click(); err != nil {
				t.Fatalf("round %d: the button of %s: %v", round, p.email, err)
			}
			if err := waitURL(page, app.URL+p.landing); err != nil {
				body, _ := page.Locator("main").InnerText()
				t.Fatalf("round %d: %s did not land on %s: at %s\n%s", round, p.email, p.landing, page.URL(), body)
			}
			badge := text(t, page, `[data-testid="user-badge"]`)
			if !strings.Contains(badge, p.name) || !strings.Contains(badge, p.role) {
				t.Errorf("round %d: %s: header says %q, want %s, %s", round, p.email, badge, p.name, p.role)
			}
			if h := text(t, page, "main h1"); !strings.Contains(h, p.heading) {
				t.Errorf("round %d: %s: heading %q, want %q", round, p.email, h, p.heading)
			}
			if round == 1 {
				app.Screenshots(t, page, "demo-"+strings.Split(p.email, "@")[0])
			}
		}
	}
	var users int
	if err := app.DB.QueryRow(ctx, `SELECT count(*) FROM users WHERE company_id = $1`, company).Scan(&users); err != nil {
		t.Fatal(err)
	}
	if users != len(people) {
		t.Errorf("the demo company has %d users after the sign-ins, want the %d seeded ones", users, len(people))
	}

	// Someone new, with an English browser, in a Czech company: English.
	page := app.NewPage(t) // locale en-GB: Accept-Language en-GB
	if _, err := page.Goto(app.URL + "/auth/dev"); err != nil {
		t.Fatal(err)
	}
	custom := page.Locator(`form:has(#dev-email)`)
	if _, err := custom.Locator("#dev-company").SelectOption(playwright.SelectOptionValues{Values: &[]string{company.String()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := custom.Locator("#dev-role").SelectOption(playwright.SelectOptionValues{Values: &[]string{"dispatcher"}}); err != nil {
		t.Fatal(err)
	}
	if err := custom.Locator("#dev-email").Fill("eva@demo-transport.cz"); err != nil {
		t.Fatal(err)
	}
	if err := custom.Locator(`button[type="submit"]`).Click(); err != nil {
		t.Fatal(err)
	}
	if err := waitURL(page, app.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if lang, _ := page.Locator("html").GetAttribute("lang"); lang != "en" {
		t.Errorf("a new user with an English browser gets lang %q", lang)
	}
	if h := text(t, page, "main h1"); !regexp.MustCompile(`^Welcome`).MatchString(h) {
		t.Errorf("heading %q, want English", h)
	}
	if badge := text(t, page, `[data-testid="user-badge"]`); !strings.Contains(badge, "Dispatcher") {
		t.Errorf("header %q, want the role in English", badge)
	}
	app.CheckA11y(t, page)
}
