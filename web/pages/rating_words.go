package pages

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/rating"
)

// componentDetails words a component's details in the reader's language
// from its explanation (a code and parameters): months named, days and
// money written as elsewhere on the pages, profile fields by their labels.
// A snapshot stored before components kept their explanation has only the
// English sentence: an English reader gets it, others nothing rather than
// English (docs/web-app.md, "Rating pages").
func componentDetails(lang i18n.Lang, cv rating.ComponentView) string {
	ex := cv.Explanation
	if ex == nil || !lang.Has("rating.details."+ex.Code) {
		if lang == i18n.EN {
			return cv.Details
		}
		return ""
	}
	p := ex.Params
	args := []any{}
	for k, v := range p {
		switch k {
		case "period":
			if m, err := rating.ParsePeriod(v); err == nil {
				v = monthLabel(lang, m)
			}
		case "as_of":
			if d, err := civil.Parse(v); err == nil {
				v = lang.Date(d)
			}
		case "amount", "max_amount":
			if d, err := decimal.NewFromString(v); err == nil {
				v = lang.Money(d, p["currency"])
			}
		case "mean_days", "limit_days", "max_count", "min_orders", "required":
			v = strings.Replace(v, ".", decimalSep(lang), 1)
		case "missing_fields":
			continue
		}
		args = append(args, k, v)
	}
	text := lang.T("rating.details."+ex.Code, args...)
	if ex.Code != "profile_completeness.filled" {
		return text
	}
	if p["required"] != "" && p["required"] != p["fields"] {
		text += " " + lang.T("rating.details.profile_needed", "required", p["required"])
	}
	if p["missing_fields"] != "" {
		var names []string
		for _, f := range strings.Split(p["missing_fields"], ",") {
			names = append(names, lang.T("field."+f))
		}
		text += " " + lang.T("rating.details.profile_missing", "fields", strings.Join(names, ", "))
	}
	return text
}
