package fleet

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/patch"
)

// Input is a vehicle's or a trailer's create or update request as the
// client sent it (a partial update, internal/patch). Unknown keys and the
// read-only fields of the object (id, internal_number, is_ready, …) are
// ignored, so a client may send back an object it read; a field of the
// other kind (a trailer's has_refrigeration on a vehicle) is 422.
type Input = patch.Input

// Limits of the fields (docs/fleet.md; the columns').
const (
	EarliestYear   = 1900
	MaxAxles       = 20
	MaxTemperature = 999.99
	MaxVolume      = 9999.99
)

// fieldSpec applies one request field to a record, adding a message to v
// when the value is not acceptable.
type fieldSpec = patch.Spec[record]

// fields are every writable field of either kind with its rule; a kind
// takes those of its columns (kindSpec.has).
var fields = map[string]fieldSpec{
	"office_id": patch.UUID(func(r *record) **uuid.UUID { return &r.OfficeID }),
	"type":      typeField,
	"status":    statusField,
	"assignment_mode": choiceField(AssignmentModes, func(v *apperr.Validation, allowed string) {
		v.Add("assignment_mode", "msg.fleet.assignment_mode", "allowed", allowed)
	}, func(r *record) **string { return &r.AssignmentMode }),
	"plate_number": plateField,
	"vin":          vinField,
	"make":         patch.OptionalString(100, func(r *record) **string { return &r.Make }),
	"model":        patch.OptionalString(100, func(r *record) **string { return &r.Model }),
	"year":         yearField,
	"fuel_type": choiceField(FuelTypes, func(v *apperr.Validation, allowed string) {
		v.Add("fuel_type", "msg.fleet.fuel_type", "allowed", allowed)
	}, func(r *record) **string { return &r.FuelType }),
	"emission_class":          patch.OptionalString(10, func(r *record) **string { return &r.EmissionClass }),
	"color":                   patch.OptionalString(50, func(r *record) **string { return &r.Color }),
	"gross_weight_kg":         intField(1, 1_000_000, func(r *record) **int { return &r.GrossWeightKg }),
	"payload_kg":              intField(1, 1_000_000, func(r *record) **int { return &r.PayloadKg }),
	"axles":                   intField(1, MaxAxles, func(r *record) **int { return &r.Axles }),
	"odometer_km":             intField(0, 100_000_000, func(r *record) **int { return &r.OdometerKm }),
	"first_registration_date": firstRegistrationField,
	"has_refrigeration":       refrigerationField,
	"temperature_min":         decimalField(-MaxTemperature, MaxTemperature, false, func(r *record) **decimal.Decimal { return &r.TemperatureMin }),
	"temperature_max":         decimalField(-MaxTemperature, MaxTemperature, false, func(r *record) **decimal.Decimal { return &r.TemperatureMax }),
	"volume_m3":               decimalField(0, MaxVolume, true, func(r *record) **decimal.Decimal { return &r.VolumeM3 }),
	"notes":                   patch.OptionalString(0, func(r *record) **string { return &r.Notes }),
	"tags":                    patch.Tags(func(r *record) *[]string { return &r.Tags }),
}

// requiredOnCreate are the fields a create must carry.
var requiredOnCreate = []string{"type", "plate_number"}

// apply merges the request into r (the stored record on update, defaults
// on create) and validates the result: the field rules for the fields
// sent, then the rules across fields on the merged record.
func (k kindSpec) apply(in Input, r *record, creating bool, fx patch.Facts, v *apperr.Validation) {
	if creating {
		patch.Required(in, requiredOnCreate, v)
	}
	patch.Apply(in, r, fields, fx, v, func(name string) bool {
		if !k.has(name) {
			v.Add(name, "msg.fleet.field_of_other_kind", "field", patch.Label(name))
			return false
		}
		return true
	})
	if !v.Has("type") && !slices.Contains(k.types, r.Type) && r.Type != "" {
		v.Add("type", "msg.fleet.type", "allowed", strings.Join(k.types, ", "))
	}
	if !v.Has("status") && !slices.Contains(k.statuses, r.Status) {
		v.Add("status", "msg.fleet.status", "allowed", strings.Join(k.statuses, ", "))
	}
	k.crossFieldRules(r, in, v)
}

// crossFieldRules check the merged record, so an update that sends one
// side of a pair is checked against the stored other side.
func (k kindSpec) crossFieldRules(r *record, sent Input, v *apperr.Validation) {
	if k.kind == vehicleKind && r.AssignmentMode != nil && r.Type != "pkv" && !v.Has("assignment_mode") && !v.Has("type") {
		v.Add("assignment_mode", "msg.fleet.assignment_mode_pkv")
	}
	if k.kind != trailerKind {
		return
	}
	if !r.HasRefrigeration && (r.TemperatureMin != nil || r.TemperatureMax != nil) &&
		!v.Has("temperature_min") && !v.Has("temperature_max") && !v.Has("has_refrigeration") {
		name := "temperature_min"
		if r.TemperatureMin == nil || (sent.Has("temperature_max") && !sent.Has("temperature_min")) {
			name = "temperature_max"
		}
		v.Add(name, "msg.fleet.temperature_without_refrigeration")
	}
	if r.TemperatureMin != nil && r.TemperatureMax != nil && r.TemperatureMin.GreaterThan(*r.TemperatureMax) &&
		!v.Has("temperature_min") && !v.Has("temperature_max") {
		if sent.Has("temperature_min") || !sent.Has("temperature_max") {
			v.Add("temperature_min", "msg.fleet.temperature_min_above_max")
		} else {
			v.Add("temperature_max", "msg.fleet.temperature_max_below_min")
		}
	}
}

// typeField is the record's type, required; its set is checked in apply,
// where the kind is known.
func typeField(r *record, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.Name, "msg.common.required", "field", f.Label)
	default:
		r.Type = strings.ToLower(s)
	}
}

// statusField is the record's status; its set is checked in apply.
func statusField(r *record, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.Name, "msg.common.required", "field", f.Label)
	default:
		r.Status = strings.ToLower(s)
	}
}

// choiceField is an optional value of a closed set; null or "" clears it.
func choiceField(allowed []string, refuse func(v *apperr.Validation, allowed string), ptr func(*record) **string) fieldSpec {
	return func(r *record, f patch.Field, v *apperr.Validation) {
		s, ok := patch.String(f, v)
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
func plateField(r *record, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case PlateKey(s) == "":
		v.Add(f.Name, "msg.common.required", "field", f.Label)
	case patch.TooLong(s, MaxPlateLength):
		v.Add(f.Name, "msg.common.too_long", "field", f.Label, "max", MaxPlateLength)
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
func vinField(r *record, f patch.Field, v *apperr.Validation) {
	s, ok := patch.String(f, v)
	switch {
	case !ok:
	case s == "":
		r.VIN = nil
	case !vinPattern.MatchString(strings.ToUpper(s)):
		v.Add(f.Name, "msg.fleet.vin")
	default:
		s = strings.ToUpper(s)
		r.VIN = &s
	}
}

// intValue decodes an optional whole number: nil for null, ok false (with
// a message) when it is not a whole number.
func intValue(f patch.Field, v *apperr.Validation) (*int, bool) {
	if f.Null() {
		return nil, true
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(f.Raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		v.Add(f.Name, "msg.fleet.not_whole_number", "field", f.Label)
		return nil, false
	}
	i, err := n.Int64()
	if err != nil || i < -1<<31 || i > 1<<31-1 {
		v.Add(f.Name, "msg.fleet.not_whole_number", "field", f.Label)
		return nil, false
	}
	x := int(i)
	return &x, true
}

// intField is an optional whole number from min to max.
func intField(min, max int, ptr func(*record) **int) fieldSpec {
	return func(r *record, f patch.Field, v *apperr.Validation) {
		n, ok := intValue(f, v)
		switch {
		case !ok:
		case n == nil:
			*ptr(r) = nil
		case *n < min || *n > max:
			v.Add(f.Name, "msg.fleet.number_range", "field", f.Label, "min", min, "max", max)
		default:
			*ptr(r) = n
		}
	}
}

// yearField is the year of manufacture: from EarliestYear to next year.
func yearField(r *record, f patch.Field, v *apperr.Validation) {
	n, ok := intValue(f, v)
	last := f.Facts.Today.Year() + 1
	switch {
	case !ok:
	case n == nil:
		r.Year = nil
	case *n < EarliestYear || *n > last:
		v.Add(f.Name, "msg.fleet.number_range", "field", f.Label, "min", EarliestYear, "max", last)
	default:
		r.Year = n
	}
}

// decimalField is an optional decimal number from min to max with at most
// two decimals; positive refuses 0.
func decimalField(min, max float64, positive bool, ptr func(*record) **decimal.Decimal) fieldSpec {
	lo, hi := decimal.NewFromFloat(min), decimal.NewFromFloat(max)
	return func(r *record, f patch.Field, v *apperr.Validation) {
		if f.Null() {
			*ptr(r) = nil
			return
		}
		var d decimal.Decimal
		raw := bytes.TrimSpace(f.Raw)
		if len(raw) == 0 || raw[0] == '"' || d.UnmarshalJSON(raw) != nil {
			v.Add(f.Name, "msg.fleet.not_number", "field", f.Label)
			return
		}
		switch {
		case d.LessThan(lo) || d.GreaterThan(hi) || (positive && !d.IsPositive()):
			v.Add(f.Name, "msg.fleet.decimal_range", "field", f.Label, "min", lo.String(), "max", hi.String())
		case !d.Equal(d.Round(2)):
			v.Add(f.Name, "msg.fleet.decimal_places", "field", f.Label, "places", 2)
		default:
			*ptr(r) = &d
		}
	}
}

// refrigerationField is has_refrigeration, a boolean.
func refrigerationField(r *record, f patch.Field, v *apperr.Validation) {
	var b bool
	if err := json.Unmarshal(f.Raw, &b); err != nil || f.Null() {
		v.Add(f.Name, "msg.fleet.not_boolean", "field", f.Label)
		return
	}
	r.HasRefrigeration = b
}

// firstRegistrationField is a date not in the future.
func firstRegistrationField(r *record, f patch.Field, v *apperr.Validation) {
	date, ok := patch.Date(f, v)
	switch {
	case !ok:
	case date == nil:
		r.FirstRegistrationDate = nil
	case date.After(f.Facts.Today):
		v.Add(f.Name, "msg.common.date_future", "field", f.Label)
	case date.Year() < EarliestYear:
		v.Add(f.Name, "msg.common.date_before", "field", f.Label, "year", EarliestYear)
	default:
		r.FirstRegistrationDate = date
	}
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
