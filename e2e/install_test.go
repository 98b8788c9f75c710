package e2e

import (
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// TestDriverCanInstallTheApp: a driver on a phone gets the installable
// app (docs/web-app.md, "Installing the app on a phone"): the page links
// the manifest, which names the app, its start page and its icons; the
// service worker registers with scope "/" and activates; it keeps only
// static files; and Chromium finds nothing that stops the installation.
func TestDriverCanInstallTheApp(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme", "en")
	fixtures.Driver(t, app.DB, company, fixtures.Name("Petr", "Malý"), fixtures.Email("petr@acme.test"))
	page := app.SignInInstalled(t, company, auth.RoleDriver, Person{Email: "petr@acme.test", FirstName: "Petr", LastName: "Malý"})

	href, err := page.Locator(`link[rel="manifest"]`).GetAttribute("href")
	must(t, err)
	res, err := http.Get(app.URL + href)
	must(t, err)
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "application/manifest+json" {
		t.Fatalf("manifest: %d %q", res.StatusCode, ct)
	}
	var m struct {
		Name, ShortName, StartURL, Scope, Display, ThemeColor, BackgroundColor string
		Icons                                                                  []struct{ Src, Sizes, Type, Purpose string }
	}
	var raw map[string]json.RawMessage
	must(t, json.NewDecoder(res.Body).Decode(&raw))
	for key, into := range map[string]*string{"name": &m.Name, "short_name": &m.ShortName, "start_url": &m.StartURL,
		"scope": &m.Scope, "display": &m.Display, "theme_color": &m.ThemeColor, "background_color": &m.BackgroundColor} {
		must(t, json.Unmarshal(raw[key], into))
	}
	must(t, json.Unmarshal(raw["icons"], &m.Icons))
	if m.Name != "Konvoj" || m.ShortName == "" || m.StartURL != "/" || m.Scope != "/" || m.Display != "standalone" ||
		m.ThemeColor != "#1e40af" || m.BackgroundColor != "#1e40af" {
		t.Errorf("manifest: %+v", m)
	}
	if theme, _ := page.Locator(`meta[name="theme-color"]`).GetAttribute("content"); theme != m.ThemeColor {
		t.Errorf("the page's theme colour %q is not the manifest's %q", theme, m.ThemeColor)
	}
	sizes := map[string]bool{}
	for _, icon := range m.Icons {
		r, err := http.Get(app.URL + icon.Src)
		must(t, err)
		cfg, err := png.DecodeConfig(r.Body)
		r.Body.Close()
		if err != nil || r.Header.Get("Content-Type") != "image/png" || icon.Sizes != fmt.Sprintf("%dx%d", cfg.Width, cfg.Height) {
			t.Errorf("icon %+v: %v, %q, %dx%d", icon, err, r.Header.Get("Content-Type"), cfg.Width, cfg.Height)
		}
		sizes[icon.Purpose+" "+icon.Sizes] = true
	}
	for _, want := range []string{"any 192x192", "any 512x512", "maskable 512x512"} {
		if !sizes[want] {
			t.Errorf("the manifest lacks the %s icon: %+v", want, m.Icons)
		}
	}

	// The worker registers and activates: asked
	// again until then (a promise awaited in the page could wait forever
	// and say nothing), failing with what the page last reported.
	var got any
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err = page.Evaluate(`async () => {
			const reg = await navigator.serviceWorker.getRegistration();
			if (!reg) return "none";
			const w = reg.active || reg.waiting || reg.installing;
			return reg.scope + " " + (w ? w.state : "no worker");
		}`)
		must(t, err)
		if got == app.URL+"/ activated" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got != app.URL+"/ activated" {
		t.Fatalf("service worker: %v", got)
	}
	sw, err := http.Get(app.URL + "/sw.js")
	must(t, err)
	sw.Body.Close()
	if cc := sw.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("/sw.js Cache-Control %q", cc)
	}

	// After a reload through the worker, what it keeps is the static
	// files, among them the style sheet, and never a page.
	_, err = page.Reload()
	must(t, err)
	if controlled, err := page.Evaluate(`() => navigator.serviceWorker.controller !== null`); err != nil || controlled != true {
		t.Errorf("the reloaded page is not the worker's: %v %v", controlled, err)
	}
	kept, err := page.Evaluate(`async () => {
		const urls = [];
		for (const name of await caches.keys()) {
			for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
		}
		return urls;
	}`)
	must(t, err)
	var css bool
	for _, u := range kept.([]any) {
		u := u.(string)
		if !strings.HasPrefix(u, app.URL+"/static/") || strings.Contains(u, "/static/apidocs/") {
			t.Errorf("the worker keeps %s", u)
		}
		css = css || strings.HasPrefix(u, app.URL+"/static/app.css?v=")
	}
	if !css {
		t.Errorf("the worker does not keep the style sheet: %v", kept)
	}

	// Chromium's own check of installability.
	cdp, err := page.Context().NewCDPSession(page)
	must(t, err)
	out, err := cdp.Send("Page.getInstallabilityErrors", nil)
	must(t, err)
	// A browser context of the tests is off the record, which Chromium
	// always names; it reports every other error beside it.
	errs, _ := out.(map[string]any)["installabilityErrors"].([]any)
	for _, e := range errs {
		if id, _ := e.(map[string]any)["errorId"].(string); id != "in-incognito" {
			t.Errorf("not installable: %v", e)
		}
	}
}
