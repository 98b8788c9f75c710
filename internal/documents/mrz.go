package documents

import (
	"encoding/json"
	"errors"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/mrz"
)

// mrzField is where a refused machine readable zone is reported.
const mrzField = "meta.mrz"

// mrzParts name the part a wrong check digit covers, in messages.
var mrzParts = map[string]string{
	mrz.PartNumber:    "field.document.number",
	mrz.PartBirthDate: "field.birth_date",
	mrz.PartExpiry:    "field.document.valid_until",
	mrz.PartOptional:  "field.document.mrz_optional",
	mrz.PartComposite: "field.document.mrz_composite",
}

// checkMRZ checks the meta.mrz a change sends (a passport's or identity
// card's zone as the phone read it, its lines joined by "\n"): every check
// digit, then that it agrees with the document's number, valid_until and
// country as the change leaves them (sent, else stored). A value the
// document does not have is not compared. Meta that is not changed is not
// checked again, so a later edit of the number is not held to an old zone
// (docs/drivers-and-documents.md, "The MRZ").
func checkMRZ(c change, m metadata) error {
	if !c.Meta.Set || c.Meta.Value == nil {
		return nil
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(*c.Meta.Value, &meta); err != nil {
		return nil // parseMeta has made sure it is an object
	}
	raw, ok := meta["mrz"]
	if !ok || isNull(raw) {
		return nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return apperr.Invalid(mrzField, "msg.documents.mrz_format")
	}
	if text == "" {
		return nil
	}
	zone, err := mrz.Parse(text)
	var ce *mrz.CheckError
	switch {
	case errors.As(err, &ce):
		return apperr.Invalid(mrzField, "msg.documents.mrz_check", "part", i18n.M(mrzParts[ce.Part]))
	case err != nil:
		return apperr.Invalid(mrzField, "msg.documents.mrz_format")
	}
	if m.Number != nil && mrz.NormalizeNumber(*m.Number) != zone.Number {
		return apperr.Invalid(mrzField, "msg.documents.mrz_mismatch", "field", fieldName("number"), "value", zone.Number)
	}
	if m.ValidUntil != nil && mrz.YYMMDD(*m.ValidUntil) != zone.Expiry {
		day, _ := mrz.Day(zone.Expiry)
		return apperr.Invalid(mrzField, "msg.documents.mrz_mismatch", "field", fieldName("valid_until"), "value", day.String())
	}
	if m.Country != nil {
		if code, ok := countries.FromICAO(zone.Issuer); !ok || code != *m.Country {
			return apperr.Invalid(mrzField, "msg.documents.mrz_mismatch", "field", fieldName("country"), "value", zone.Issuer)
		}
	}
	return nil
}
