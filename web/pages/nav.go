package pages

import (
	"context"
	"log/slog"
	"strings"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/views"
)

// The main navigation (docs/web-app.md, "Navigation"): a few entries and
// menus that fit one row at 1280 px for every role in every language. Each
// area adds its entry when it mounts (addNav); navLayout says where it
// stands.

// navSlot is a place in the navigation: one entry by its address, or a
// menu of the entries at hrefs.
type navSlot struct {
	href string
	// menu is the menu's name (an i18n key), icon its icon on the phone.
	menu, icon string
	hrefs      []string
}

// navLayout is the navigation from left to right. Every entry an area adds
// has its place here (TestNavigationRowOfEachRole). A menu of which a
// role sees one entry shows that entry alone.
var navLayout = []navSlot{
	{href: "/"},
	// Drivers, vehicles and trailers share one place: the row has no room
	// for another at 1280 px in Czech.
	{menu: "nav.menu.fleet", icon: "truck", hrefs: []string{"/drivers", "/vehicles", "/trailers"}},
	{menu: "nav.menu.documents", icon: "document", hrefs: []string{documentsURL, reviewQueueURL, "/document-types", "/document-rules"}},
	{menu: "nav.menu.finance", icon: "banknotes", hrefs: []string{"/finance", monthEndPath, "/penalties"}},
	{href: "/ratings"},
	{menu: "nav.menu.settings", icon: "cog", hrefs: []string{usersURL, webhooksURL, "/audit", sessionsURL}},
}

// The addresses of the documents list and the sessions page (the users
// page's is in users.go).
const (
	documentsURL = "/documents"
	sessionsURL  = "/sessions"
)

// navEntry is a navigation item and the action a role needs to see it.
type navEntry struct {
	item   views.NavItem
	action auth.Action // "" for everyone
	// own, when set, gives the entry shown to callers whose grant is Own
	// (a driver's "My profile" instead of the list); ok false hides it.
	own func(auth.Principal) (views.NavItem, bool)
	// count, when set, gives the number the entry shows (the uploads
	// waiting for review); 0 shows none.
	count func(context.Context, auth.Principal) (int, error)
}

// addNav adds a main navigation entry, shown to roles whose grant for
// action is not Deny ("" shows it to everyone), at its place in
// navLayout.
func (p *Pages) addNav(item views.NavItem, action auth.Action) {
	p.addNavEntry(navEntry{item: item, action: action})
}

// addOwnNav is addNav with another entry for callers whose grant for
// action is Own.
func (p *Pages) addOwnNav(item views.NavItem, action auth.Action, own func(auth.Principal) (views.NavItem, bool)) {
	p.addNavEntry(navEntry{item: item, action: action, own: own})
}

// addCountedNav is addNav with a number shown next to the entry.
func (p *Pages) addCountedNav(item views.NavItem, action auth.Action, count func(context.Context, auth.Principal) (int, error)) {
	p.addNavEntry(navEntry{item: item, action: action, count: count})
}

func (p *Pages) addNavEntry(e navEntry) {
	for _, o := range p.nav {
		if o.item.Href == e.item.Href {
			panic("pages: two navigation entries for " + e.item.Href)
		}
	}
	p.nav = append(p.nav, e)
}

// shownNav is an entry as the caller sees it, with the address it was
// added under (its place in navLayout).
type shownNav struct {
	item  views.NavItem
	place string
}

// navFor returns the caller's navigation entries in the order they were
// added, marking the current page.
func (p *Pages) navFor(ctx context.Context, pr auth.Principal, path string) []views.NavItem {
	shown := p.navShown(ctx, pr, path)
	out := make([]views.NavItem, len(shown))
	for i, s := range shown {
		out[i] = s.item
	}
	return out
}

// navBar returns the caller's navigation as the header shows it: the
// entries and menus of navLayout the caller may see.
func (p *Pages) navBar(ctx context.Context, pr auth.Principal, path string) []views.NavItem {
	return arrangeNav(p.navShown(ctx, pr, path))
}

func (p *Pages) navShown(ctx context.Context, pr auth.Principal, path string) []shownNav {
	var out []shownNav
	for _, e := range p.nav {
		if e.action != "" && !shows(pr, e.action) {
			continue
		}
		s := shownNav{item: e.item, place: e.item.Href}
		if e.count != nil {
			n, err := e.count(ctx, pr)
			if err != nil {
				// A count is not worth an error page.
				p.log.WarnContext(ctx, "count for the navigation", slog.String("href", s.item.Href), slog.Any("error", err))
			}
			s.item.Count = n
		}
		if e.own != nil && ownOnly(pr, e.action) {
			var ok bool
			if s.item, ok = e.own(pr); !ok {
				continue
			}
		}
		it := &s.item
		it.Active = path == it.Href || (it.Href != "/" && strings.HasPrefix(path, it.Href+"/"))
		out = append(out, s)
	}
	// Only the most specific entry is current (a driver's penalties lie
	// under its profile).
	best := -1
	for i, s := range out {
		if s.item.Active && (best < 0 || len(s.item.Href) > len(out[best].item.Href)) {
			best = i
		}
	}
	for i := range out {
		out[i].item.Active = i == best
	}
	return out
}

// arrangeNav puts the entries at their places in navLayout, the menus
// around theirs; an entry without a place comes last.
func arrangeNav(shown []shownNav) []views.NavItem {
	byPlace := make(map[string]shownNav, len(shown))
	for _, s := range shown {
		byPlace[s.place] = s
	}
	placed := map[string]bool{}
	var out []views.NavItem
	for _, slot := range navLayout {
		if slot.menu == "" {
			if s, ok := byPlace[slot.href]; ok {
				out = append(out, s.item)
				placed[slot.href] = true
			}
			continue
		}
		menu := views.NavItem{Label: slot.menu, Icon: slot.icon}
		for _, h := range slot.hrefs {
			s, ok := byPlace[h]
			if !ok {
				continue
			}
			placed[h] = true
			menu.Items = append(menu.Items, s.item)
			menu.Count += s.item.Count
			menu.Active = menu.Active || s.item.Active
		}
		switch len(menu.Items) {
		case 0:
		case 1:
			out = append(out, menu.Items[0])
		default:
			out = append(out, menu)
		}
	}
	for _, s := range shown {
		if !placed[s.place] {
			out = append(out, s.item)
		}
	}
	return out
}
