package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

// A driver reads its phone pages in its own language: a Ukrainian driver
// with an empty profile, an expired medical examination, a work permit
// capped by an expired residence permit, a pending penalty and a transport
// unit that is not ready sees its home (the unit's plates and why it may
// not drive, axe-clean in Ukrainian and Czech), documents, pay, penalties,
// a penalty and its rating in each of the five languages. In Polish, Ukrainian and Romanian no English word of the
// catalogue shows and, in every language, no field code; penalties are
// negative everywhere, Accept asks once, the greeting is the driver's
// name, every tap target is 44 px tall and no page is wider than 390 px.
// One signed-in page, each screen once a language.
func TestDriverReadsItsOwnLanguage(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.api(t, company, http.MethodPut, "/api/v0/companies/"+company.String()+"/document-rules", map[string]any{"rules": []any{
		map[string]any{"document_type": "residence_permit", "required": true, "required_for": "non_eu"},
		map[string]any{"document_type": "work_permit", "required": true, "required_for": "non_eu"},
	}}, http.StatusOK, nil)
	ids := app.seedDrivers(t, company, []seedDriver{{First: "Olena", Last: "Kovalenko", Email: "olena@acme.test", Citizenship: "UA",
		Office: "Praha", Hired: "2024-03-01", Docs: map[string]int{"passport": 900, "drivers_license": 1200, "tachograph_card": 700,
			"code_95": 20, "medical_examination": -3, "residence_permit": -10, "work_permit": 526}}})
	own := "/drivers/" + ids["olena@acme.test"].String()
	var pen struct{ ID string }
	app.api(t, company, http.MethodPost, "/api/v0"+own+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "1000.50",
		"incident_date": dateIn(0), "description": "Radar D1 km 12"}, http.StatusCreated, &pen)
	penalty := own + "/penalties/" + pen.ID
	// Her transport unit: a lorry and a trailer, not ready (her expired
	// medical examination, the lorry's documents never handed in).
	dispatch := func(path string, body map[string]any, out any) {
		app.apiAs(t, company, "dispatcher", "dispatch@acme.test", http.MethodPost, path, body, http.StatusCreated, out)
	}
	var lorry, trailer struct{ ID string }
	dispatch("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1AB 2345"}, &lorry)
	dispatch("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "1PB 0012"}, &trailer)
	dispatch("/api/v0/transport-units", map[string]any{"driver_id": ids["olena@acme.test"], "vehicle_id": lorry.ID, "trailer_id": trailer.ID}, nil)
	medicalSince, err := civil.Parse(dateIn(-2))
	must(t, err)

	// No display name: the account's name is its e-mail address.
	page := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "olena@acme.test"})
	english := englishWords(t)
	fieldCode := regexp.MustCompile(`\b[a-z0-9]+_[a-z0-9_]+\b`)
	screens := []string{"/", own, own + "/pay", own + "/penalties", penalty, own + "/rating"}
	for _, lang := range []i18n.Lang{i18n.PL, i18n.UK, i18n.RO, i18n.CS, i18n.EN} {
		toLanguage(t, page, lang)
		for _, screen := range screens {
			_, err := page.Goto(app.URL + screen)
			must(t, err)
			must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", string(lang)))
			main := page.Locator("main")
			shown, err := main.InnerText()
			must(t, err)
			where := string(lang) + " " + screen
			if m := fieldCode.FindAllString(shown, -1); len(m) > 0 {
				t.Errorf("%s shows field codes %q", where, m)
			}
			if lang != i18n.EN && lang != i18n.CS {
				if w := english[lang].in(shown); len(w) > 0 {
					t.Errorf("%s shows English words %q", where, w)
				}
			}
			if strings.Contains(shown, "526") {
				t.Errorf("%s counts the capped work permit's own 526 days", where)
			}
			tapTargets(t, page, where)
			fitsWidth(t, page, where)
			switch screen {
			case "/":
				must(t, expect.Locator(page.GetByTestId("welcome")).ToContainText("Olena Kovalenko"))
				must(t, expect.Locator(page.GetByTestId("todo-penalty")).ToContainText(lang.Money(decimal.RequireFromString("-1000.50"), "CZK")))
				must(t, expect.Locator(page.GetByTestId("unit-vehicle")).ToContainText("1AB 2345"))
				must(t, expect.Locator(page.GetByTestId("unit-trailer")).ToContainText("1PB 0012"))
				must(t, expect.Locator(page.GetByTestId("unit-readiness")).ToHaveText(lang.T("home.unit.not_ready")))
				must(t, expect.Locator(page.GetByTestId("unit-reasons")).ToContainText(lang.T("home.unit.reason.document_expired",
					"holder", lang.T("home.unit.holder.driver"), "type", lang.T("doc.type.medical_examination"), "date", lang.Date(medicalSince))))
				if lang == i18n.UK || lang == i18n.CS {
					app.CheckA11y(t, page)
				}
			case own + "/penalties":
				must(t, expect.Locator(page.GetByTestId("penalty-amount")).ToHaveText(lang.Money(decimal.RequireFromString("-1000.50"), "CZK")))
				must(t, expect.Locator(page.GetByTestId("penalties-total")).ToHaveText(lang.Money(decimal.RequireFromString("-1000.50"), "CZK")))
			case own:
				// A1 for Switzerland is not required: not uploaded, not missing.
				must(t, expect.Locator(page.GetByTestId("document-a1_switzerland")).ToHaveAttribute("data-required", "false"))
				must(t, expect.Locator(page.GetByTestId("document-a1_switzerland")).ToContainText(lang.T("doc.status.not_uploaded")))
			case own + "/rating":
				must(t, expect.Locator(page.GetByTestId("rating-advice")).ToContainText(lang.T("rating.advice.doc_limited",
					"document", docName(lang, "work_permit"), "cap", docName(lang, "residence_permit"))))
				// The profile's empty fields by their labels.
				must(t, expect.Locator(page.GetByTestId("component-details").Filter(playwright.LocatorFilterOptions{
					HasText: lang.T("field.rodne_cislo")})).ToHaveCount(1))
			case penalty:
				must(t, expect.Locator(page.GetByTestId("penalty-amount")).ToHaveText(lang.Money(decimal.RequireFromString("-1000.50"), "CZK")))
				if lang == i18n.UK {
					acceptAsksOnce(t, page, lang)
				}
			}
		}
	}
}

// acceptAsksOnce: the first tap on Accept asks (what is deducted, Yes,
// Cancel) and changes nothing; Cancel goes back to the pending penalty.
func acceptAsksOnce(t *testing.T, page playwright.Page, lang i18n.Lang) {
	t.Helper()
	must(t, page.GetByTestId("accept-submit").Click())
	confirm := page.GetByTestId("accept-confirm")
	must(t, expect.Locator(confirm).ToBeVisible())
	must(t, expect.Locator(confirm).ToContainText(lang.Money(decimal.RequireFromString("1000.50"), "CZK")))
	must(t, expect.Locator(page.Locator("[data-penalty-status]").First()).ToHaveAttribute("data-penalty-status", "pending"))
	must(t, expect.Locator(page.GetByTestId("accept-confirm-submit")).ToBeFocused())
	tapTargets(t, page, "uk accept confirmation")
	must(t, page.GetByTestId("accept-cancel").Click())
	must(t, expect.Locator(page.GetByTestId("accept-submit")).ToBeVisible())
	must(t, expect.Locator(page.Locator("[data-penalty-status]").First()).ToHaveAttribute("data-penalty-status", "pending"))
}

func docName(lang i18n.Lang, docType string) string {
	name := lang.T("doc.type." + docType)
	if lang == i18n.EN {
		return strings.ToLower(name[:1]) + name[1:]
	}
	return name
}

// toLanguage picks the language with the switch (inside the menu on a
// phone).
func toLanguage(t *testing.T, page playwright.Page, lang i18n.Lang) {
	t.Helper()
	button := page.Locator(`button:visible:has-text("` + lang.Name() + `")`)
	if n, _ := button.Count(); n == 0 {
		must(t, page.Locator(`[data-testid=mobile-menu] > summary`).Click())
	}
	must(t, button.First().Click())
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", string(lang)))
}

// tapTargets: every visible link and button of the page's main part is at
// least 44 px tall.
func tapTargets(t *testing.T, page playwright.Page, where string) {
	t.Helper()
	small, err := page.Evaluate(`() => [...document.querySelectorAll('main a, main button, main summary, main input[type=submit]')]
		.filter(e => e.offsetParent !== null && !e.closest('.sr-only'))
		.map(e => [e.getBoundingClientRect().height, (e.dataset.testid || e.textContent.trim().slice(0, 30))])
		.filter(([h]) => h > 0 && h < 44)
		.map(([h, n]) => Math.round(h) + 'px ' + n)`)
	must(t, err)
	if s, _ := small.([]any); len(s) > 0 {
		t.Errorf("%s: tap targets under 44 px: %q", where, s)
	}
}

// fitsWidth: the page is no wider than the phone.
func fitsWidth(t *testing.T, page playwright.Page, where string) {
	t.Helper()
	w, err := page.Evaluate(`() => document.documentElement.scrollWidth`)
	must(t, err)
	if n, ok := w.(int); !ok || n > phone.Width {
		t.Errorf("%s is %v px wide on a %d px phone", where, w, phone.Width)
	}
}

// wordSet are words of the English catalogue a language's page must not
// show.
type wordSet map[string]bool

func (ws wordSet) in(text string) []string {
	seen := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z]{4,}`).FindAllString(text, -1) {
		if ws[strings.ToLower(w)] {
			seen[w] = true
		}
	}
	var out []string
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// englishWords are, per language, the words of four letters or more of
// the English catalogue's texts that none of the language's texts uses
// (so "IBAN", "SWIFT" or "Konvoj" do not count), less the names the test
// itself puts on the page.
func englishWords(t *testing.T) map[i18n.Lang]wordSet {
	t.Helper()
	words := func(lang i18n.Lang) map[string]bool {
		raw, err := os.ReadFile(filepath.Join(repoRoot, "internal", "i18n", "locales", string(lang)+".json"))
		must(t, err)
		var cat map[string]any
		must(t, json.Unmarshal(raw, &cat))
		out := map[string]bool{}
		var add func(v any)
		add = func(v any) {
			switch v := v.(type) {
			case string:
				v = regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(v, " ")
				for _, w := range regexp.MustCompile(`[A-Za-z]{4,}`).FindAllString(v, -1) {
					out[strings.ToLower(w)] = true
				}
			case map[string]any:
				for _, x := range v {
					add(x)
				}
			}
		}
		for _, v := range cat {
			add(v)
		}
		return out
	}
	en := words(i18n.EN)
	mine := map[string]bool{"olena": true, "kovalenko": true, "acme": true, "transport": true, "praha": true, "radar": true, "test": true}
	out := map[i18n.Lang]wordSet{}
	for _, lang := range []i18n.Lang{i18n.PL, i18n.UK, i18n.RO} {
		theirs := words(lang)
		ws := wordSet{}
		for w := range en {
			if !theirs[w] && !mine[w] {
				ws[w] = true
			}
		}
		out[lang] = ws
	}
	return out
}
