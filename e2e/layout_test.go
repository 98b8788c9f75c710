package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// Every page of each role's menu, in English and Czech: on a 390 px phone
// nothing is wider than the screen (tables stack into cards), and at
// 1280 px the navigation is one row whose menus open inside the screen
// (docs/web-app.md, "Navigation" and "Tables on a phone").
func TestEveryPageFitsTheScreen(t *testing.T) {
	app := newApp(t)
	company, ids := homeCompany(t, app)
	petr, jan := ids["petr.maly@acme.test"].String(), ids["jan.novak@acme.test"].String()
	for _, id := range []string{petr, jan} {
		app.api(t, company, http.MethodPost, "/api/v0/drivers/"+id+"/rating/calculate", map[string]any{}, http.StatusOK, nil)
	}
	// Pages one step from the menu with tables of their own: a driver's
	// profile, ledger, pay periods and rating.
	deeper := []string{"/drivers/" + jan, "/drivers/" + petr + "/finance", "/drivers/" + petr + "/finance/periods", "/drivers/" + jan + "/rating"}

	// Each address is walked once a language (each role's home once a
	// role): the roles differ in the pages they reach more than in their
	// look.
	seen := map[string]bool{}
	for _, c := range []struct {
		role   auth.Role
		who    []Person
		deeper []string
	}{
		{role: auth.RoleAdmin, deeper: deeper},
		{role: auth.RoleHRManager},
		{role: auth.RoleAccountant, deeper: deeper[1:3]},
		{role: auth.RoleDispatcher},
		{role: auth.RoleDriver, who: []Person{{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"}}},
	} {
		page := app.SignInAt(t, phone, "/", company, c.role, c.who...)
		for _, lang := range []string{"en", "cs"} {
			if lang == "cs" {
				must(t, page.SetViewportSize(phone.Width, phone.Height))
				_, err := page.Goto(app.URL + "/")
				must(t, err)
				toCzech(t, page, app.URL+"/")
			}
			must(t, page.SetViewportSize(desktop.Width, desktop.Height))
			links := navOneRow(t, page, app.Out, string(c.role)+"-"+lang)
			must(t, page.SetViewportSize(phone.Width, phone.Height))
			for _, href := range append(links, c.deeper...) {
				// An address another role already walked in this language
				// shows the same layout; only each role's home differs
				// enough to walk again.
				if seen[lang+href] && href != "/" {
					continue
				}
				res, err := page.Goto(app.URL + href)
				must(t, err)
				name := fmt.Sprintf("fit-%s-%s%s", c.role, lang, regexp.MustCompile(`[^a-z-]+`).ReplaceAllString(strings.ReplaceAll(href, "/", "-"), ""))
				if res.Status() != http.StatusOK {
					t.Errorf("%s: %s answers %d", name, href, res.Status())
					continue
				}
				fitsScreen(t, page, name)
				if first := !seen[lang+href]; first && lang == "en" {
					app.CheckA11y(t, page)
					app.Screenshots(t, page, name)
				} else if first {
					_, err = page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(app.Out, name+"-phone.png")), FullPage: playwright.Bool(true)})
					must(t, err)
				}
				seen[lang+href] = true
			}
		}
	}
}

// navLink is the navigation's entry of that name at desktop width, its
// menu opened when it is in one.
func navLink(t *testing.T, page playwright.Page, name string) playwright.Locator {
	t.Helper()
	nav := page.Locator("nav[data-testid=nav]")
	link := nav.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: name, Exact: playwright.Bool(true)})
	if visible, _ := link.IsVisible(); !visible {
		must(t, nav.Locator("details", playwright.LocatorLocatorOptions{
			Has: page.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: name, Exact: playwright.Bool(true), IncludeHidden: playwright.Bool(true)}),
		}).Locator("summary").Click())
	}
	return link
}

// navOneRow checks the navigation at desktop width on the home page: its
// entries stand in one row, the header is one line, every menu opens with
// its entries inside the screen and closes again (Escape gives the focus
// back to its button). It returns the addresses of every entry, menus'
// included, in order.
func navOneRow(t *testing.T, page playwright.Page, out, name string) []string {
	t.Helper()
	res, err := page.Evaluate(`() => {
		const nav = document.querySelector('nav[data-testid=nav]');
		const tops = [...nav.querySelectorAll(':scope > ul > li')].map(li => Math.round(li.getBoundingClientRect().top));
		const header = document.querySelector('header');
		const out = [];
		if (new Set(tops).size !== 1) out.push('the entries stand in ' + new Set(tops).size + ' rows (tops ' + tops.join(', ') + ')');
		const nh = nav.getBoundingClientRect().height, hh = header.getBoundingClientRect().height;
		if (nh > 44) out.push('the navigation is ' + nh + ' px high');
		if (hh > 64) out.push('the header is ' + hh + ' px high');
		for (const el of header.querySelectorAll('a, button, summary')) {
			const r = el.getBoundingClientRect();
			if (r.width > 0 && r.right > window.innerWidth) out.push((el.innerText || el.title).trim() + ' ends at ' + Math.round(r.right) + ' px');
		}
		return out;
	}`)
	must(t, err)
	if list, _ := res.([]any); len(list) > 0 {
		t.Errorf("%s at %d px: %v", name, desktop.Width, list)
	}
	nav := page.Locator("nav[data-testid=nav]")
	menus := nav.Locator("details[data-nav-menu]")
	n, err := menus.Count()
	must(t, err)
	for i := 0; i < n; i++ {
		menu := menus.Nth(i)
		summary := menu.Locator("summary")
		must(t, summary.Click())
		must(t, expect.Locator(menu).ToHaveAttribute("open", ""))
		entries := menu.Locator("ul a")
		must(t, expect.Locator(entries.First()).ToBeVisible())
		inside, err := menu.Locator("ul").Evaluate(`ul => { const r = ul.getBoundingClientRect(); return r.right <= window.innerWidth && r.bottom <= window.innerHeight && r.left >= 0 }`, nil)
		must(t, err)
		if inside != true {
			label, _ := summary.InnerText()
			t.Errorf("%s: the menu %q opens beyond the screen", name, label)
		}
		if i == 0 {
			_, err = page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(out, "menu-"+name+"-desktop.png"))})
			must(t, err)
		}
		must(t, page.Keyboard().Press("Escape"))
		must(t, expect.Locator(menu).Not().ToHaveAttribute("open", ""))
		must(t, expect.Locator(summary).ToBeFocused())
	}
	hrefs, err := nav.Locator("a").EvaluateAll(`as => as.map(a => a.getAttribute('href'))`)
	must(t, err)
	var links []string
	for _, h := range hrefs.([]any) {
		if s := h.(string); !slices.Contains(links, s) {
			links = append(links, s)
		}
	}
	if len(links) < 3 {
		t.Fatalf("%s: the navigation has %d entries: %v", name, len(links), links)
	}
	return links
}

// fitsScreen fails when the page is wider than the phone it is shown on,
// naming the outermost visible elements that reach past its right edge.
func fitsScreen(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	res, err := page.Evaluate(`() => {
		const w = window.innerWidth, out = [];
		const sw = document.documentElement.scrollWidth;
		if (sw > w) out.push('the page is ' + sw + ' px wide');
		const past = el => {
			if (el.closest('.sr-only') || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
			const r = el.getBoundingClientRect();
			return r.width > 0 && r.height > 0 && r.right > w + 0.5;
		};
		const describe = el => {
			let s = el.tagName.toLowerCase();
			if (el.id) s += '#' + el.id;
			const tid = el.closest('[data-testid]');
			if (tid) s += ' in [data-testid=' + tid.dataset.testid + ']';
			const text = (el.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 40);
			if (text) s += ' "' + text + '"';
			return s + ' ends at ' + Math.round(el.getBoundingClientRect().right) + ' px';
		};
		for (const el of document.body.querySelectorAll('*')) {
			if (past(el) && !(el.parentElement && el.parentElement !== document.body && past(el.parentElement))) out.push(describe(el));
			if (out.length >= 8) break;
		}
		return out;
	}`)
	must(t, err)
	if list, _ := res.([]any); len(list) > 0 {
		t.Errorf("%s (%s) at %d px: %v", name, page.URL(), phone.Width, list)
	}
}
