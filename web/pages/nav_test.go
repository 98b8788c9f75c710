package pages_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// navRow is the header's navigation row of a page (docs/web-app.md,
// "Navigation"): an entry as its address, a menu as "Name: address …".
func navRow(t *testing.T, body string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var find func(*html.Node, func(*html.Node) bool) *html.Node
	find = func(n *html.Node, ok func(*html.Node) bool) *html.Node {
		if ok(n) {
			return n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if f := find(c, ok); f != nil {
				return f
			}
		}
		return nil
	}
	attr := func(n *html.Node, name string) string {
		for _, a := range n.Attr {
			if a.Key == name {
				return a.Val
			}
		}
		return ""
	}
	tag := func(name string) func(*html.Node) bool {
		return func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == name }
	}
	var textOf func(*html.Node) string
	textOf = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(textOf(c))
		}
		return b.String()
	}
	nav := find(doc, func(n *html.Node) bool { return tag("nav")(n) && attr(n, "data-testid") == "nav" })
	if nav == nil {
		t.Fatal("no navigation row on the page")
	}
	var out []string
	for li := find(nav, tag("ul")).FirstChild; li != nil; li = li.NextSibling {
		if !tag("li")(li) {
			continue
		}
		menu := find(li, tag("details"))
		if menu == nil {
			out = append(out, attr(find(li, tag("a")), "href"))
			continue
		}
		entry := strings.Join(strings.Fields(textOf(find(menu, tag("summary")))), " ") + ":"
		for sub := find(menu, tag("ul")).FirstChild; sub != nil; sub = sub.NextSibling {
			if tag("li")(sub) {
				entry += " " + attr(find(sub, tag("a")), "href")
			}
		}
		out = append(out, entry)
	}
	return out
}

// Each role's navigation row: few entries, the rest in menus, and every
// entry at its place (an entry without one would come last).
func TestNavigationRowOfEachRole(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	own := env.Driver(company, fixtures.Name("Petr", "Malý"), fixtures.Email("petr@acme.test")).String()
	for _, c := range []struct {
		role  auth.Role
		email string
		want  []string
	}{
		{auth.RoleAdmin, "ada@acme.test", []string{"/", "Fleet: /drivers /vehicles /trailers",
			"Documents: /documents /document-reviews /document-types /document-rules",
			"Finance: /finance /finance/month-end /penalties", "/ratings",
			"Settings: /users /settings/webhooks /audit /sessions"}},
		{auth.RoleHRManager, "hana@acme.test", []string{"/", "Fleet: /drivers /vehicles /trailers",
			"Documents: /documents /document-reviews /document-types /document-rules",
			"Finance: /finance /finance/month-end /penalties", "/ratings",
			"Settings: /audit /sessions"}},
		{auth.RoleAccountant, "adam@acme.test", []string{"/", "Fleet: /drivers /vehicles /trailers", "Finance: /finance /finance/month-end", "/ratings", "/sessions"}},
		{auth.RoleDispatcher, "dana@acme.test", []string{"/", "Fleet: /drivers /vehicles /trailers", "/documents", "/ratings", "/sessions"}},
		{auth.RoleDriver, "petr@acme.test", []string{"/", "/drivers/" + own,
			"Finance: /drivers/" + own + "/pay /drivers/" + own + "/penalties", "/drivers/" + own + "/rating", "/sessions"}},
	} {
		b := signIn(t, env, company, c.role, c.email, "en")
		if got := navRow(t, b.get("/").expect(t, http.StatusOK).Body); !slices.Equal(got, c.want) {
			t.Errorf("%s's navigation row:\n%q\nwant\n%q", c.role, got, c.want)
		}
	}

	// The current page's menu is marked, and the page in it.
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "cs")
	body := hr.get("/audit").expect(t, http.StatusOK).Body
	if got := navRow(t, body); !slices.Contains(got, "Nastavení: /audit /sessions") {
		t.Errorf("HR's Czech navigation row %q lacks the settings menu", got)
	}
	hr.get("/audit").expect(t, http.StatusOK).contains(t, `class="nav-link cursor-pointer list-none whitespace-nowrap nav-link-active"`,
		`href="/audit" class="nav-link whitespace-nowrap nav-link-active" aria-current="page"`)
}
