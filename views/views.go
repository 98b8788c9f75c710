// Package views holds the templ components of the web pages: the layout
// shell, sign-in, the dashboard and the error pages. Components get plain
// data (no services, no permission rules); texts come from internal/i18n
// through T, with the request's language in the context.
package views

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
)

// T translates a key in the request's language (see i18n.Lang.T).
func T(ctx context.Context, key string, pairs ...any) string {
	return i18n.From(ctx).T(key, pairs...)
}

// DocType is a document type's name in the request's language: a built-in
// type's from the catalogues, a company's own type's from its names
// (documents.TypeNames.Name: the reader's language, else English, Czech,
// any).
func DocType(ctx context.Context, code string) string {
	return documents.TypeNamesFrom(ctx).Name(i18n.From(ctx), code)
}

// Lang is the request's language.
func Lang(ctx context.Context) i18n.Lang { return i18n.From(ctx) }

// User is the signed-in person as the shell shows it.
type User struct {
	Name  string
	Email string
	// Role is the role's code (admin, hr_manager, …); shown translated.
	Role string
}

// NavItem is one entry of the main navigation.
type NavItem struct {
	Href string
	// Label is an i18n key.
	Label string
	// Icon names an icon of the Icon component.
	Icon   string
	Active bool
	// Description is an i18n key shown on the dashboard ("" for none).
	Description string
	// Count is a number shown with the entry (0: none), such as the
	// uploads waiting for review.
	Count int
}

// Flash kinds.
const (
	FlashSuccess = "success"
	FlashError   = "error"
	FlashInfo    = "info"
)

// Flash is a one-time message shown at the top of the next page.
type Flash struct {
	Kind string
	Text string
}

// Shell is what the layout needs on every page.
type Shell struct {
	// Title is the page title, already translated.
	Title string
	// User is nil on pages shown before sign-in.
	User *User
	Nav  []NavItem
	// CSRF is the token every state-changing form and htmx request sends.
	CSRF    string
	Flashes []Flash
	// Path is the current path with its query, where the language switch
	// returns to.
	Path string
	// Address, when set, is the page's own address the browser shows
	// instead of the one it asked for: a form refused and shown again
	// keeps the address of the page it was on (static/forms.js).
	Address string
	// Unread is the signed-in user's unread notifications (the bell).
	Unread int
}

func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

// htmxConfig lets htmx swap error responses too: 422 carries a form with
// its inline messages, other errors carry an error page that retargets
// itself to the body (HX-Retarget). Nothing is kept in the history cache
// (pages hold personal data), so going back reloads the page from its URL.
const htmxConfig = `{"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}],"historyCacheSize":0,"refreshOnHistoryMiss":true,"includeIndicatorStyles":false}`

func roleKey(role string) string { return "role." + role }

func itoa(n int) string { return strconv.Itoa(n) }

func queryEscape(s string) string { return url.QueryEscape(s) }

// bellLabel names the bell for assistive technology, with the count.
func bellLabel(ctx context.Context, unread int) string {
	if unread == 0 {
		return T(ctx, "notifications.bell_none")
	}
	return T(ctx, "notifications.bell", "count", strconv.Itoa(unread))
}

// bellCount is the count on the bell (99+ above 99).
func bellCount(n int) string {
	if n > 99 {
		return "99+"
	}
	return strconv.Itoa(n)
}
