package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Input is a vehicle's or a trailer's create or update request as the
// client sent it: field name → raw JSON value. A missing key leaves the
// field as it is; null (or an empty string) clears an optional field.
// Unknown keys and the read-only fields of the object (id,
// internal_number, is_ready, …) are ignored, so a client may send back an
// object it read; a field of the other kind (a trailer's
// has_refrigeration on a vehicle) is 422.
type Input struct {
	Fields map[string]json.RawMessage
}

// Set adds a field value (for callers that build an Input in Go, such as
// the web pages and tests).
func (in *Input) Set(field string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode field %s: %w", field, err)
	}
	if in.Fields == nil {
		in.Fields = map[string]json.RawMessage{}
	}
	in.Fields[field] = raw
	return nil
}

// Limits of the fields (docs/fleet.md; the columns').
const (
	EarliestYear   = 1900
	MaxAxles       = 20
	MaxTemperature = 999.99
	MaxVolume      = 9999.99
)

// field is one request value with the names used in messages.
type field struct {
	name  string
	label i18n.Message
	raw   json.RawMessage
	facts facts
}

// facts are what a record's values are judged against besides the request:
// today in the company's time zone.
type facts struct {
	today civil.Date
}

// fieldSpec applies one request field to a record, adding a message to v
// when the value is not acceptable.
type fieldSpec func(r *record, f field, v *apperr.Validation)

// fields are every writable field of either kind with its rule; a kind
// takes those of its columns (kindSpec.has).
var fields = map[string]fieldSpec{
	"office_id": uuidField(func(r *record) **uuid.UUID { return &r.OfficeID }),
	"type":      typeField,
	"status":    statusField,
	"assignment_mode": choiceField(AssignmentModes, func(v *apperr.Validation, allowed string) {
		v.Add("assignment_mode", "msg.fleet.assignment_mode", "allowed", allowed)
	}, func(r *record) **string { return &r.AssignmentMode }),
	"plate_number": plateField,
	"vin":          vinField,
	"make":         optionalString(100, func(r *record) **string { return &r.Make }),
	"model":        optionalString(100, func(r *record) **string { return &r.Model }),
	"year":         yearField,
	"fuel_type": choiceField(FuelTypes, func(v *apperr.Validation, allowed string) {
		v.Add("fuel_type", "msg.fleet.fuel_type", "allowed", allowed)
	}, func(r *record) **string { return &r.FuelType }),
	"emission_class":          optionalString(10, func(r *record) **string { return &r.EmissionClass }),
	"color":                   optionalString(50, func(r *record) **string { return &r.Color }),
	"gross_weight_kg":         intField(1, 1_000_000, func(r *record) **int { return &r.GrossWeightKg }),
	"payload_kg":              intField(1, 1_000_000, func(r *record) **int { return &r.PayloadKg }),
	"axles":                   intField(1, MaxAxles, func(r *record) **int { return &r.Axles }),
	"odometer_km":             intField(0, 100_000_000, func(r *record) **int { return &r.OdometerKm }),
	"first_registration_date": firstRegistrationField,
	"has_refrigeration":       refrigerationField,
	"temperature_min":         decimalField(-MaxTemperature, MaxTemperature, false, func(r *record) **decimal.Decimal { return &r.TemperatureMin }),
	"temperature_max":         decimalField(-MaxTemperature, MaxTemperature, false, func(r *record) **decimal.Decimal { return &r.TemperatureMax }),
	"volume_m3":               decimalField(0, MaxVolume, true, func(r *record) **decimal.Decimal { return &r.VolumeM3 }),
	"notes":                   optionalString(0, func(r *record) **string { return &r.Notes }),
	"tags":                    tagsField,
}

// requiredOnCreate are the fields a create must carry.
var requiredOnCreate = []string{"type", "plate_number"}

// apply merges the request into r (the stored record on update, defaults
// on create) and validates the result: the field rules for the fields
// sent, then the rules across fields on the merged record.
func (k kindSpec) apply(in Input, r *record, creating bool, fx facts, v *apperr.Validation) {
	if creating {
		for _, name := range requiredOnCreate {
			if _, ok := in.Fields[name]; !ok {
				v.Add(name, "msg.common.required", "field", label(name))
			}
		}
	}
	names := make([]string, 0, len(in.Fields))
	for name := range in.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		spec, ok := fields[name]
		if !ok {
			continue
		}
		if !k.has(name) {
			v.Add(name, "msg.fleet.field_of_other_kind", "field", label(name))
			continue
		}
		spec(r, field{name: name, label: label(name), raw: in.Fields[name], facts: fx}, v)
	}
	if !v.Has("type") && !slices.Contains(k.types, r.Type) && r.Type != "" {
		v.Add("type", "msg.fleet.type", "allowed", strings.Join(k.types, ", "))
	}
	if !v.Has("status") && !slices.Contains(k.statuses, r.Status) {
		v.Add("status", "msg.fleet.status", "allowed", strings.Join(k.statuses, ", "))
	}
	k.crossFieldRules(r, in.Fields, v)
}

// crossFieldRules check the merged record, so an update that sends one
// side of a pair is checked against the stored other side.
func (k kindSpec) crossFieldRules(r *record, sent map[string]json.RawMessage, v *apperr.Validation) {
	if k.kind == vehicleKind && r.AssignmentMode != nil && r.Type != "pkv" && !v.Has("assignment_mode") && !v.Has("type") {
		v.Add("assignment_mode", "msg.fleet.assignment_mode_pkv")
	}
	if k.kind != trailerKind {
		return
	}
	if !r.HasRefrigeration && (r.TemperatureMin != nil || r.TemperatureMax != nil) &&
		!v.Has("temperature_min") && !v.Has("temperature_max") && !v.Has("has_refrigeration") {
		name := "temperature_min"
		if r.TemperatureMin == nil || (has(sent, "temperature_max") && !has(sent, "temperature_min")) {
			name = "temperature_max"
		}
		v.Add(name, "msg.fleet.temperature_without_refrigeration")
	}
	if r.TemperatureMin != nil && r.TemperatureMax != nil && r.TemperatureMin.GreaterThan(*r.TemperatureMax) &&
		!v.Has("temperature_min") && !v.Has("temperature_max") {
		if has(sent, "temperature_min") || !has(sent, "temperature_max") {
			v.Add("temperature_min", "msg.fleet.temperature_min_above_max")
		} else {
			v.Add("temperature_max", "msg.fleet.temperature_max_below_min")
		}
	}
}

func has(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// label is the field's name as messages show it (the catalogue's
// "field.<name>").
func label(name string) i18n.Message { return i18n.M("field." + name) }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// stringValue decodes a JSON string (trimmed). ok is false, with a message
// added, when the value is not a string. null gives "", true.
func stringValue(f field, v *apperr.Validation) (string, bool) {
	if isNull(f.raw) {
		return "", true
	}
	var s string
	if err := json.Unmarshal(f.raw, &s); err != nil {
		v.Add(f.name, "msg.common.not_string", "field", f.label)
		return "", false
	}
	return strings.TrimSpace(s), true
}

func tooLong(s string, max int) bool { return max > 0 && utf8.RuneCountInString(s) > max }

// optionalString: null or "" clears the field; max 0 means no limit.
func optionalString(max int, ptr func(*record) **string) fieldSpec {
	return func(r *record, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(r) = nil
		case tooLong(s, max):
			v.Add(f.name, "msg.common.too_long", "field", f.label, "max", max)
		default:
			*ptr(r) = &s
		}
	}
}

// typeField is the record's type, required; its set is checked in apply,
// where the kind is known.
func typeField(r *record, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.name, "msg.common.required", "field", f.label)
	default:
		r.Type = strings.ToLower(s)
	}
}

// statusField is the record's status; its set is checked in apply.
func statusField(r *record, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.name, "msg.common.required", "field", f.label)
	default:
		r.Status = strings.ToLower(s)
	}
}

// choiceField is an optional value of a closed set; null or "" clears it.
func choiceField(allowed []string, refuse func(v *apperr.Validation, allowed string), ptr func(*record) **string) fieldSpec {
	return func(r *record, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(r) = nil
		case !slices.Contains(allowed, strings.ToLower(s)):
			refuse(v, strings.Join(allowed, ", "))
		default:
			s = strings.ToLower(s)
			*ptr(r) = &s
		}
	}
}

// MaxPlateLength is the longest plate number.
const MaxPlateLength = 20

// plateField is the plate number, required, stored as written (trimmed,
// upper case); it is compared without spaces and dashes.
func plateField(r *record, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case PlateKey(s) == "":
		v.Add(f.name, "msg.common.required", "field", f.label)
	case tooLong(s, MaxPlateLength):
		v.Add(f.name, "msg.common.too_long", "field", f.label, "max", MaxPlateLength)
	default:
		r.PlateNumber = strings.ToUpper(s)
	}
}

// PlateKey is a plate's form for comparing: without white space and
// dashes, upper case (konvoj_plate_key in SQL).
func PlateKey(plate string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(plate) {
		if c == '-' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// vinPattern is a VIN after upper-casing: 17 of A–Z and 0–9 without I, O
// and Q.
var vinPattern = regexp.MustCompile(`^[A-HJ-NPR-Z0-9]{17}$`)

// vinField is the VIN, optional, stored upper case.
func vinField(r *record, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		r.VIN = nil
	case !vinPattern.MatchString(strings.ToUpper(s)):
		v.Add(f.name, "msg.fleet.vin")
	default:
		s = strings.ToUpper(s)
		r.VIN = &s
	}
}

// intValue decodes an optional whole number: nil for null, ok false (with
// a message) when it is not a whole number.
func intValue(f field, v *apperr.Validation) (*int, bool) {
	if isNull(f.raw) {
		return nil, true
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		v.Add(f.name, "msg.fleet.not_whole_number", "field", f.label)
		return nil, false
	}
	i, err := n.Int64()
	if err != nil || i < -1<<31 || i > 1<<31-1 {
		v.Add(f.name, "msg.fleet.not_whole_number", "field", f.label)
		return nil, false
	}
	x := int(i)
	return &x, true
}

// intField is an optional whole number from min to max.
func intField(min, max int, ptr func(*record) **int) fieldSpec {
	return func(r *record, f field, v *apperr.Validation) {
		n, ok := intValue(f, v)
		switch {
		case !ok:
		case n == nil:
			*ptr(r) = nil
		case *n < min || *n > max:
			v.Add(f.name, "msg.fleet.number_range", "field", f.label, "min", min, "max", max)
		default:
			*ptr(r) = n
		}
	}
}

// yearField is the year of manufacture: from EarliestYear to next year.
func yearField(r *record, f field, v *apperr.Validation) {
	n, ok := intValue(f, v)
	last := f.facts.today.Year() + 1
	switch {
	case !ok:
	case n == nil:
		r.Year = nil
	case *n < EarliestYear || *n > last:
		v.Add(f.name, "msg.fleet.number_range", "field", f.label, "min", EarliestYear, "max", last)
	default:
		r.Year = n
	}
}

// decimalField is an optional decimal number from min to max with at most
// two decimals; positive refuses 0.
func decimalField(min, max float64, positive bool, ptr func(*record) **decimal.Decimal) fieldSpec {
	lo, hi := decimal.NewFromFloat(min), decimal.NewFromFloat(max)
	return func(r *record, f field, v *apperr.Validation) {
		if isNull(f.raw) {
			*ptr(r) = nil
			return
		}
		var d decimal.Decimal
		raw := bytes.TrimSpace(f.raw)
		if len(raw) == 0 || raw[0] == '"' || d.UnmarshalJSON(raw) != nil {
			v.Add(f.name, "msg.fleet.not_number", "field", f.label)
			return
		}
		switch {
		case d.LessThan(lo) || d.GreaterThan(hi) || (positive && !d.IsPositive()):
			v.Add(f.name, "msg.fleet.decimal_range", "field", f.label, "min", lo.String(), "max", hi.String())
		case !d.Equal(d.Round(2)):
			v.Add(f.name, "msg.fleet.decimal_places", "field", f.label, "places", 2)
		default:
			*ptr(r) = &d
		}
	}
}

// refrigerationField is has_refrigeration, a boolean.
func refrigerationField(r *record, f field, v *apperr.Validation) {
	var b bool
	if err := json.Unmarshal(f.raw, &b); err != nil || isNull(f.raw) {
		v.Add(f.name, "msg.fleet.not_boolean", "field", f.label)
		return
	}
	r.HasRefrigeration = b
}

// firstRegistrationField is a date not in the future.
func firstRegistrationField(r *record, f field, v *apperr.Validation) {
	if isNull(f.raw) {
		r.FirstRegistrationDate = nil
		return
	}
	var s string
	if err := json.Unmarshal(f.raw, &s); err != nil {
		v.Add(f.name, "msg.common.not_date", "field", f.label)
		return
	}
	if s = strings.TrimSpace(s); s == "" {
		r.FirstRegistrationDate = nil
		return
	}
	date, err := civil.Parse(s)
	switch {
	case err != nil:
		v.Add(f.name, "msg.common.not_date", "field", f.label)
	case date.After(f.facts.today):
		v.Add(f.name, "msg.common.date_future", "field", f.label)
	case date.Year() < EarliestYear:
		v.Add(f.name, "msg.common.date_before", "field", f.label, "year", EarliestYear)
	default:
		r.FirstRegistrationDate = &date
	}
}

func uuidField(ptr func(*record) **uuid.UUID) fieldSpec {
	return func(r *record, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(r) = nil
		default:
			id, err := uuid.Parse(s)
			if err != nil {
				v.Add(f.name, "msg.common.uuid", "field", f.label)
				return
			}
			*ptr(r) = &id
		}
	}
}

// tagPattern is a tag as drivers' tags are: lower-case letters, digits, _
// and -.
var tagPattern = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)

// tagsField replaces the tags as a whole, as a driver's tags are replaced
// (docs/drivers-and-documents.md, the same limits and messages).
func tagsField(r *record, f field, v *apperr.Validation) {
	if isNull(f.raw) {
		r.Tags = []string{}
		return
	}
	var raw []string
	if err := json.Unmarshal(f.raw, &raw); err != nil {
		v.Add(f.name, "msg.drivers.tags")
		return
	}
	tags := []string{}
	for i, t := range raw {
		t = strings.ToLower(strings.TrimSpace(t))
		if !tagPattern.MatchString(t) {
			v.Add(fmt.Sprintf("tags.%d", i), "msg.drivers.tag", "max", drivers.MaxTagLength)
			return
		}
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	if len(tags) > drivers.MaxTags {
		v.Add(f.name, "msg.drivers.too_many_tags", "max", drivers.MaxTags)
		return
	}
	r.Tags = tags
}

// withFrigo is the record's tags with frigo added when it is a trailer
// with refrigeration (docs/fleet.md).
func withFrigo(r record) []string {
	tags := tagsValue(r.Tags)
	if r.HasRefrigeration && !slices.Contains(tags, FrigoTag) {
		tags = append(slices.Clone(tags), FrigoTag)
	}
	return tags
}
