package drivers

import (
	"bytes"
	"encoding/json"
	"net/mail"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/patch"
	"github.com/konvoj/konvoj/internal/phones"
)

// readOnlyFields are fields of the driver object that a request cannot set.
var readOnlyFields = map[string]bool{
	"id": true, "company_id": true, "internal_number": true, "is_ready": true,
	"documents": true, "documents_summary": true, "created_at": true, "updated_at": true,
}

// Input is a create or update request as the client sent it (a partial
// update, internal/patch). Unknown keys and the read-only fields of the
// driver object (id, internal_number, is_ready, …) are ignored, so a client
// may send back an object it read.
type Input = patch.Input

// fieldSpec applies one request field to a driver record, adding a message
// to v when the value is not acceptable.
type fieldSpec = patch.Spec[Driver]

// Facts are what a driver's values are judged against besides the request
// itself: today (a birth date cannot be later) and the company's country, in
// which a phone number written without its international prefix is read
// (docs/drivers-and-documents.md).
type Facts = patch.Facts

// FactsOf are the caller's company's facts.
func FactsOf(p auth.Principal) Facts { return Facts{Today: p.Today(), Country: p.CompanyCountry} }

// EarliestBirthYear is the first year a birth date may fall in.
const EarliestBirthYear = 1900

// fields are the writable fields with their rules. Lengths are the
// specification's (and the columns').
var fields = map[string]fieldSpec{
	"office_id":            patch.UUID(func(d *Driver) **uuid.UUID { return &d.OfficeID }),
	"first_name":           patch.RequiredString(100, func(d *Driver) *string { return &d.FirstName }),
	"last_name":            patch.RequiredString(100, func(d *Driver) *string { return &d.LastName }),
	"middle_name":          patch.OptionalString(100, func(d *Driver) **string { return &d.MiddleName }),
	"birth_date":           birthDateField,
	"citizenship":          countryField(func(d *Driver) **string { return &d.Citizenship }),
	"rodne_cislo":          patch.OptionalString(20, func(d *Driver) **string { return &d.RodneCislo }),
	"email":                emailField,
	"phone":                phoneField(50, func(d *Driver) **string { return &d.Phone }),
	"registration_address": patch.OptionalString(0, func(d *Driver) **string { return &d.RegistrationAddress }),
	"residence_address":    patch.OptionalString(0, func(d *Driver) **string { return &d.ResidenceAddress }),
	"status":               statusField,
	"hire_date":            dateField(func(d *Driver) **civil.Date { return &d.HireDate }),
	"fire_date":            dateField(func(d *Driver) **civil.Date { return &d.FireDate }),
	"contract_from":        dateField(func(d *Driver) **civil.Date { return &d.ContractFrom }),
	"contract_to":          dateField(func(d *Driver) **civil.Date { return &d.ContractTo }),
	"contract_indefinite":  contractIndefiniteField,
	"work_location":        patch.OptionalString(50, func(d *Driver) **string { return &d.WorkLocation }),
	"bank_country":         countryField(func(d *Driver) **string { return &d.BankCountry }),
	"bank_account":         patch.OptionalString(50, func(d *Driver) **string { return &d.BankAccount }),
	"iban":                 ibanField,
	"swift":                swiftField,
	"flags":                flagsField,
	"tags":                 patch.Tags(func(d *Driver) *[]string { return &d.Tags }),
	"language":             languageField,
}

// requiredOnCreate are the fields a create must carry (docs/drivers-and-documents.md).
var requiredOnCreate = []string{"first_name", "last_name", "email"}

// apply merges the request into d (the stored record on update, defaults on
// create) and validates the result: field rules for the fields sent, then
// the rules across fields on the merged record.
func apply(in Input, d *Driver, creating bool, facts Facts, v *apperr.Validation) {
	if creating {
		patch.Required(in, requiredOnCreate, v)
	}
	patch.Apply(in, d, fields, facts, v, nil)
	crossFieldRules(d, in, v)
}

// crossFieldRules checks the merged record, so an update that sends only one
// side of a pair is checked against the stored other side. The message goes
// to the field that was sent.
func crossFieldRules(d *Driver, sent Input, v *apperr.Validation) {
	if d.ContractFrom != nil && d.ContractTo != nil && !d.ContractFrom.Before(*d.ContractTo) &&
		!v.Has("contract_from") && !v.Has("contract_to") {
		if sent.Has("contract_from") || !sent.Has("contract_to") {
			v.Add("contract_from", "msg.drivers.contract_from_after_to")
		} else {
			v.Add("contract_to", "msg.drivers.contract_to_before_from")
		}
	}
	if d.HireDate != nil && d.FireDate != nil && d.FireDate.Before(*d.HireDate) &&
		!v.Has("hire_date") && !v.Has("fire_date") {
		if sent.Has("fire_date") || !sent.Has("hire_date") {
			v.Add("fire_date", "msg.drivers.fire_before_hire")
		} else {
			v.Add("hire_date", "msg.drivers.hire_after_fire")
		}
	}
}

// checkDriverFields enforces docs/permissions.md for a driver editing its own
// record: any driver field beyond phone, addresses and bank fields is 403
// Forbidden, never silently dropped.
func checkDriverFields(in Input) error {
	var refused []string
	for name := range in.Fields {
		_, writable := fields[name]
		if (writable || readOnlyFields[name]) && !auth.DriverEditableFields[name] {
			refused = append(refused, name)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	sort.Strings(refused)
	return apperr.Forbiddenf("msg.drivers.self_edit_refused", "fields", strings.Join(refused, ", "))
}

func dateField(ptr func(*Driver) **civil.Date) fieldSpec {
	return func(d *Driver, f patch.Field, v *apperr.Validation) {
		if date, ok := patch.Date(f, v); ok {
			*ptr(d) = date
		}
	}
}

// birthDateField is a date neither in the future nor before
// EarliestBirthYear.
func birthDateField(d *Driver, f patch.Field, v *apperr.Validation) {
	var date *civil.Date
	if dateField(func(*Driver) **civil.Date { return &date })(d, f, v); date == nil {
		if !v.Has(f.Name) {
			d.BirthDate = nil
		}
		return
	}
	switch {
	case date.After(f.Facts.Today):
		v.Add(f.Name, "msg.common.date_future", "field", f.Label)
	case date.Year() < EarliestBirthYear:
		v.Add(f.Name, "msg.common.date_before", "field", f.Label, "year", EarliestBirthYear)
	default:
		d.BirthDate = date
	}
}

// phoneField reads a phone number with phones.Normalize and stores it in
// E.164 when the numbering plans know it (docs/drivers-and-documents.md,
// "Phone numbers"); a number without its international prefix is read in
// the company's country.
func phoneField(max int, ptr func(*Driver) **string) fieldSpec {
	return func(d *Driver, f patch.Field, v *apperr.Validation) {
		s, ok := patch.String(f, v)
		if !ok {
			return
		}
		if s == "" {
			*ptr(d) = nil
			return
		}
		if patch.TooLong(s, max) {
			v.Add(f.Name, "msg.common.too_long", "field", f.Label, "max", max)
			return
		}
		if e164, ok := phoneValue(v, f.Name, f.Label, s, f.Facts.Country); ok {
			*ptr(d) = &e164
		}
	}
}

// phoneValue normalises a phone number written in text for the field name
// (label in messages): the stored form and true, or a message in v and
// false. A number without its international prefix is read in country
// (the company's).
func phoneValue(v *apperr.Validation, name string, label i18n.Message, text, country string) (string, bool) {
	e164, problem := phones.Normalize(text, country)
	switch problem {
	case phones.OK:
		return e164, true
	default:
		v.Add(name, "msg.common.phone", "field", label, "value", text)
	}
	return "", false
}

// countryField accepts an ISO 3166-1 alpha-2 code in any case and stores it
// upper case (the schema's CHECK).
func countryField(ptr func(*Driver) **string) fieldSpec {
	return func(d *Driver, f patch.Field, v *apperr.Validation) {
		s, ok := patch.String(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(d) = nil
		default:
			code := countries.Normalize(s)
			if !countries.Valid(code) {
				v.Add(f.Name, "msg.common.country", "field", f.Label)
				return
			}
			*ptr(d) = &code
		}
	}
}

func emailField(d *Driver, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.Name, "msg.common.required", "field", f.Label)
	case patch.TooLong(s, 255):
		v.Add(f.Name, "msg.common.too_long", "field", f.Label, "max", 255)
	case !validEmail(s):
		v.Add(f.Name, "msg.common.email")
	default:
		d.Email = s
	}
}

// validEmail accepts a bare address (no display name) whose domain has a
// dot: "jan@firma" is far more often a typo than a real mailbox here.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return at > 0 && strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") &&
		!strings.HasSuffix(domain, ".") && !strings.Contains(domain, "..")
}

func statusField(d *Driver, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.Name, "msg.common.required", "field", f.Label)
	case !slices.Contains(Statuses, s):
		v.Add(f.Name, "msg.drivers.status")
	default:
		d.Status = s
	}
}

func contractIndefiniteField(d *Driver, f patch.Field, v *apperr.Validation) {
	var b bool
	if f.Null() || json.Unmarshal(f.Raw, &b) != nil {
		v.Add(f.Name, "msg.drivers.contract_indefinite")
		return
	}
	d.ContractIndefinite = b
}

// ibanField stores the IBAN without spaces, upper case, after its mod-97
// checksum passed.
func ibanField(d *Driver, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	if !ok {
		return
	}
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	switch {
	case s == "":
		d.IBAN = nil
	case !ValidIBAN(s):
		v.Add(f.Name, "msg.drivers.iban")
	default:
		d.IBAN = &s
	}
}

var bicPattern = regexp.MustCompile(`^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$`)

// swiftField stores a BIC (8 or 11 characters) upper case.
func swiftField(d *Driver, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	if !ok {
		return
	}
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	switch {
	case s == "":
		d.SWIFT = nil
	case !bicPattern.MatchString(s) || !countries.Valid(s[4:6]):
		v.Add(f.Name, "msg.drivers.swift")
	default:
		d.SWIFT = &s
	}
}

// knownFlags are the flags with a defined meaning (booleans); other keys are
// kept as sent.
var knownFlags = []string{"pas_souhlas", "propiska_cz"}

// flagsField replaces the flags object as a whole (null clears it to {}).
func flagsField(d *Driver, f patch.Field, v *apperr.Validation) {
	if f.Null() {
		d.Flags = json.RawMessage(`{}`)
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(f.Raw, &m); err != nil || m == nil {
		v.Add(f.Name, "msg.drivers.flags")
		return
	}
	bad := false
	for _, k := range knownFlags {
		var b bool
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &b) != nil {
			v.Add("flags."+k, "msg.drivers.flag", "flag", k)
			bad = true
		}
	}
	if bad {
		return
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.Raw); err != nil {
		v.Add(f.Name, "msg.drivers.flags")
		return
	}
	d.Flags = buf.Bytes()
}

// ValidIBAN checks an IBAN written without spaces, upper case: country code,
// two check digits, 11-30 letters or digits, and the ISO 13616 mod-97
// checksum.
func ValidIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !countries.Valid(s[:2]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	rem := 0
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			rem = (rem*10 + int(r-'0')) % 97
		case r >= 'A' && r <= 'Z':
			rem = (rem*100 + int(r-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// MaxTags and MaxTagLength bound a driver's tags (docs/drivers-and-documents.md).
const (
	MaxTags      = patch.MaxTags
	MaxTagLength = patch.MaxTagLength
)

// Languages are the languages a driver may have (null: the company's).
var Languages = []string{"cs", "en", "pl", "uk", "ro"}

// ParseTags splits a comma-separated text into tags (the pages' form).
func ParseTags(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// languageField sets the driver's language: one of Languages, or null or
// "" for the company's.
func languageField(d *Driver, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		d.Language = nil
	case !slices.Contains(Languages, strings.ToLower(s)):
		v.Add(f.Name, "msg.drivers.language", "allowed", strings.Join(Languages, ", "))
	default:
		s = strings.ToLower(s)
		d.Language = &s
	}
}

// tagsValue is the tags as stored: never NULL.
func tagsValue(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}
