// Package i18n holds the web pages' message catalogues (English and Czech)
// and the language-aware formatting of dates and money. A message is found
// by a dotted key ("nav.drivers", "drivers.field.first_name"); {name}
// placeholders are filled from name/value pairs. There are no plural rules:
// texts are written so that one form reads well ("Drivers: 3").
//
// Each area keeps its texts in its own file (catalog_<area>.go) that adds
// both languages in an init function, so areas never edit the same lines.
package i18n

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Lang is a supported language (ISO 639-1 code).
type Lang string

// The supported languages.
const (
	EN Lang = "en"
	CS Lang = "cs"
)

// Default is used when nothing else says which language to speak.
const Default = EN

// Langs lists the supported languages in the order the switch shows them.
var Langs = []Lang{CS, EN}

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

// Pick returns the first supported language among the candidates, else
// Default. Candidates may be empty or unsupported codes.
func Pick(candidates ...string) Lang {
	for _, c := range candidates {
		if l, ok := Parse(c); ok {
			return l
		}
	}
	return Default
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

var (
	mu       sync.RWMutex
	catalogs = map[Lang]map[string]string{EN: {}, CS: {}}
	// messages translate the English texts that services return (validation
	// and error messages) into other languages, keyed by the English text.
	messages = map[Lang]map[string]string{CS: {}}
)

// Add registers texts of one language; called from init functions of the
// catalog_*.go files. A key added twice panics, so clashes show at once.
func Add(l Lang, texts map[string]string) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := catalogs[l]
	if !ok {
		panic(fmt.Sprintf("i18n: unsupported language %q", l))
	}
	for k, v := range texts {
		if _, dup := c[k]; dup {
			panic(fmt.Sprintf("i18n: key %q added twice for %s", k, l))
		}
		c[k] = v
	}
}

// AddMessages registers translations of English service messages
// ("The first_name field is required." → Czech).
func AddMessages(l Lang, texts map[string]string) {
	mu.Lock()
	defer mu.Unlock()
	m, ok := messages[l]
	if !ok {
		panic(fmt.Sprintf("i18n: no message table for %q", l))
	}
	for k, v := range texts {
		m[k] = v
	}
}

// T returns the text of key in the language with {name} placeholders
// filled from pairs ("name", value, ...). A key missing in the language
// falls back to English, then to the key itself, so a gap shows but never
// breaks a page.
func (l Lang) T(key string, pairs ...any) string {
	mu.RLock()
	text, ok := catalogs[l][key]
	if !ok {
		text, ok = catalogs[EN][key]
	}
	mu.RUnlock()
	if !ok {
		text = key
	}
	if len(pairs) == 0 {
		return text
	}
	args := make([]string, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		args = append(args, "{"+fmt.Sprint(pairs[i])+"}", fmt.Sprint(pairs[i+1]))
	}
	return strings.NewReplacer(args...).Replace(text)
}

// Msg translates an English message returned by a service (validation
// and error messages are written in English once, in the service). Unknown
// messages are shown as they are.
func (l Lang) Msg(english string) string {
	mu.RLock()
	defer mu.RUnlock()
	if t, ok := messages[l][english]; ok {
		return t
	}
	return english
}

// Has reports whether the key exists in the language's own catalogue.
func (l Lang) Has(key string) bool {
	mu.RLock()
	defer mu.RUnlock()
	_, ok := catalogs[l][key]
	return ok
}

// Keys returns every key of a language's catalogue (for tests).
func Keys(l Lang) []string {
	mu.RLock()
	defer mu.RUnlock()
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
