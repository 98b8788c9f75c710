// Package i18n holds the text catalogues (the pages' texts and the
// services' messages) and the language-aware formatting of dates and money.
// A text is found by a dotted key ("nav.drivers", "msg.drivers.iban");
// {name} placeholders are filled from name/value pairs.
//
// The texts live in one translator file per language, locales/<lang>.json
// (a flat, sorted JSON object of key → text that translation tools open
// as key-value JSON), embedded in the binary and read at start-up. A text
// that counts something is an object of CLDR plural categories instead of
// a string; the count argument picks the form by the language's rules
// from golang.org/x/text/feature/plural ("1 řidič", "2 řidiči", "5 řidičů").
//
// English and Czech hold every key. Polish, Ukrainian and Romanian hold
// everything a driver sees; a key used only by office staff (StaffOnly)
// may be missing there and then falls back to English. Tests check both
// rules and the files' form (see docs/texts.md).
package i18n

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/text/feature/plural"

	"github.com/konvoj/konvoj/internal/civil"
)

// Lang is a supported language (ISO 639-1 code).
type Lang string

// The supported languages.
const (
	EN Lang = "en"
	CS Lang = "cs"
	PL Lang = "pl"
	UK Lang = "uk"
	RO Lang = "ro"
)

// Default is used when nothing else says which language to speak.
const Default = EN

// Langs lists the supported languages in the order the switch shows them.
var Langs = []Lang{CS, EN, PL, UK, RO}

// Complete are the languages that hold every key; the others hold what a
// driver sees and fall back to English for the rest.
var Complete = []Lang{EN, CS}

// StaffOnly are the key prefixes of texts only office staff see (HR,
// accountants, dispatchers, admins): the drivers list, the audit log, the
// development sign-in, creating and deleting drivers, the dispute queue and
// HR's penalty forms (create, resolve), and the messages of
// the rules a driver cannot reach (transactions and pay periods, the rating
// configuration, companies, the drivers list) or meets only through the
// API, which answers in English anyway (request parsing).
// Polish, Ukrainian and Romanian may leave them out (English is shown).
var StaffOnly = []string{
	"drivers.", "audit.", "devlogin.", "nav.drivers", "nav.audit",
	"driver.new.", "driver.delete", "driver.created", "driver.deleted", "driver.edit.intro",
	"msg.api.", "msg.list.", "msg.tenants.", "msg.audit.", "msg.finance.", "msg.rating.", "msg.auth.role",
	"field.tenant.", "field.company_id",
	"devoutbox.", "msg.outbox.",
	"webhooks.", "msg.webhooks.", "field.webhook.", "nav.webhooks", "notify.webhook_disabled.",
	"nav.disputes", "disputes.", "nav.expiring", "expiring.", "compliance.", "imports.", "msg.imports.", "export.", "penalty.list", "penalty.new.", "penalty.resolve.", "penalty.severity.",
	"review.", "home.review.", "msg.review.",
	"msg.drivers.tag", "msg.drivers.too_many_tags", "msg.drivers.language", "field.tags", "field.language",
	"doctypes.", "nav.document_types", "msg.document_types.", "field.document_type.",
	"nav.ranking", "ranking.", "ratingcfg.", "rating.recalculate",
	"finance.close.", "finance.reopen.", "nav.month_end", "monthend.", "payroll.", "state.period",
	"users.", "nav.users", "msg.users.",
}

// IsStaffOnly reports whether key is a text only office staff see.
func IsStaffOnly(key string) bool {
	for _, p := range StaffOnly {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// names are the languages' own names, as the language switch shows them.
var names = map[Lang]string{CS: "Čeština", EN: "English", PL: "Polski", UK: "Українська", RO: "Română"}

// Name is the language's name in itself ("Polski").
func (l Lang) Name() string { return names[l] }

// Parse reports whether s names a supported language.
func Parse(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, l := range Langs {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}

// FromAcceptLanguage picks the first supported language of an
// Accept-Language header ("cs-CZ,cs;q=0.9,en;q=0.8"), ignoring weights: browsers
// send them in preference order.
func FromAcceptLanguage(header string) (Lang, bool) {
	for _, part := range strings.Split(header, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(tag, "-")
		if l, ok := Parse(base); ok {
			return l, true
		}
	}
	return "", false
}

// locales holds one translator file per language, locales/<lang>.json: a
// flat JSON object of key → text, where a text that counts something is an
// object of CLDR plural categories ({"one": "{count} driver", "other":
// "{count} drivers"}).
//
//go:embed locales/*.json
var locales embed.FS

// text is one key's text in one language: a plain string, or its plural
// forms chosen by the count argument.
type text struct {
	plain string
	forms map[plural.Form]string
}

// catalogs are read once at start-up and never written again, so reading
// needs no lock.
var catalogs = func() map[Lang]map[string]text {
	out := make(map[Lang]map[string]text, len(Langs))
	for _, l := range Langs {
		c, err := load(l)
		if err != nil {
			panic(err) // a broken file embedded in the binary is a build defect
		}
		out[l] = c
	}
	return out
}()

// load reads and checks one language's file.
func load(l Lang) (map[string]text, error) {
	name := "locales/" + string(l) + ".json"
	raw, err := locales.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("i18n: read %s: %w", name, err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("i18n: parse %s: %w", name, err)
	}
	out := make(map[string]text, len(entries))
	for k, v := range entries {
		var t text
		if err := json.Unmarshal(v, &t.plain); err != nil {
			var forms map[string]string
			if err := json.Unmarshal(v, &forms); err != nil {
				return nil, fmt.Errorf("i18n: %s: key %q is neither a text nor an object of plural forms", name, k)
			}
			t.forms = make(map[plural.Form]string, len(forms))
			for cat, s := range forms {
				f, ok := formOf(cat)
				if !ok {
					return nil, fmt.Errorf("i18n: %s: key %q has an unknown plural category %q", name, k, cat)
				}
				t.forms[f] = s
			}
			if _, ok := t.forms[plural.Other]; !ok {
				return nil, fmt.Errorf("i18n: %s: key %q has no \"other\" plural form", name, k)
			}
		}
		out[k] = t
	}
	return out, nil
}

// pick returns the text, choosing the plural form for count ("" when the
// caller gave none: the "other" form).
func (t text) pick(l Lang, count string) string {
	if t.forms == nil {
		return t.plain
	}
	if s, ok := t.forms[PluralForm(l, count)]; ok {
		return s
	}
	return t.forms[plural.Other]
}

// T returns the text of key in the language with {name} placeholders
// filled from pairs ("name", value, ...). A value that is a Message is
// itself rendered in the language (a field's name inside a sentence); a
// civil.Date is a day and an Amount money, both written for people in the
// language ("30. 11. 2026", "-2 000,00 Kč"; docs/texts.md). A
// text with plural forms takes the one the language's CLDR rules give for
// the count argument ("1 řidič", "2 řidiči", "5 řidičů"). A key missing in
// the language falls back to English, then to the key itself, so a gap
// shows but never breaks a page.
func (l Lang) T(key string, pairs ...any) string {
	lang := l
	t, ok := catalogs[l][key]
	if !ok {
		lang = EN
		t, ok = catalogs[EN][key]
	}
	if !ok {
		return key
	}
	if len(pairs) == 0 {
		return t.pick(lang, "")
	}
	count := ""
	args := make([]string, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		var value string
		switch v := pairs[i+1].(type) {
		case Message:
			value = l.Text(v)
		case civil.Date:
			value = l.Date(v)
		case *civil.Date:
			if v != nil {
				value = l.Date(*v)
			}
		case Amount:
			value = l.Money(v.Value, v.Currency)
		case []string:
			value = strings.Join(v, ", ")
		default:
			value = fmt.Sprint(v)
		}
		name := fmt.Sprint(pairs[i])
		if name == "count" {
			count = value
		}
		args = append(args, "{"+name+"}", value)
	}
	return strings.NewReplacer(args...).Replace(t.pick(lang, count))
}

// Message is a text key with its arguments as name/value pairs: what a
// service returns instead of a sentence, rendered later in the reader's
// language (English for the API, the user's language on the pages).
type Message struct {
	Key  string
	Args []any
}

// Amount is a sum of money as an argument of a text: T writes it with
// Lang.Money, never as the stored "2000.00".
type Amount struct {
	Value    decimal.Decimal
	Currency string
}

// Or is the text of the first of keys the catalogues hold (in the
// language, else in English, as T falls back), else fallback: a stored
// code or a text people typed shows as it is when it has no words.
func (l Lang) Or(fallback string, keys ...string) string {
	for _, k := range keys {
		if EN.Has(k) {
			return l.T(k)
		}
	}
	return fallback
}

// M builds a Message: M("msg.common.too_long", "field", M("field.phone"), "max", 50).
func M(key string, pairs ...any) Message { return Message{Key: key, Args: pairs} }

// Text renders a Message in the language.
func (l Lang) Text(m Message) string { return l.T(m.Key, m.Args...) }

// Has reports whether the key exists in the language's own catalogue.
func (l Lang) Has(key string) bool {
	_, ok := catalogs[l][key]
	return ok
}

// Keys returns every key of a language's catalogue (for tests).
func Keys(l Lang) []string {
	out := make([]string, 0, len(catalogs[l]))
	for k := range catalogs[l] {
		out = append(out, k)
	}
	return out
}

type ctxKey struct{}

// WithLang stores the request's language in a context; templ components
// read it with From.
func WithLang(ctx context.Context, l Lang) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the language stored by WithLang, else Default.
func From(ctx context.Context) Lang {
	if l, ok := ctx.Value(ctxKey{}).(Lang); ok {
		return l
	}
	return Default
}
