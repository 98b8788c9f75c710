package drivers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

func TestValidIBAN(t *testing.T) {
	for _, tc := range []struct {
		iban string
		want bool
	}{
		{"CZ6508000000192000145399", true},
		{"DE89370400440532013000", true},
		{"GB82WEST12345698765432", true},
		{"NO9386011117947", true}, // the shortest (15)
		{"CZ6508000000192000145398", false},
		{"DE89370400440532013001", false},
		{"XX89370400440532013000", false}, // no such country
		{"DE8937040044053201300", false},  // one digit short: checksum fails
		{"DE89-370400440532013000", false},
		{"DE89", false},
		{"", false},
	} {
		if got := ValidIBAN(tc.iban); got != tc.want {
			t.Errorf("ValidIBAN(%q) = %v, want %v", tc.iban, got, tc.want)
		}
	}
}

func TestValidEmail(t *testing.T) {
	for _, tc := range []struct {
		email string
		want  bool
	}{
		{"jan.novak@example.cz", true},
		{"j+tag@sub.example.com", true},
		{"not-an-email", false},
		{"jan@firma", false},
		{"Jan <jan@example.cz>", false},
		{"jan@@example.cz", false},
		{"jan@example..cz", false},
		{"jan @example.cz", false},
		{"@example.cz", false},
	} {
		if got := validEmail(tc.email); got != tc.want {
			t.Errorf("validEmail(%q) = %v, want %v", tc.email, got, tc.want)
		}
	}
}

func input(t *testing.T, body string) Input {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatal(err)
	}
	return Input{Fields: fields}
}

func fieldErrors(t *testing.T, v *apperr.Validation) map[string][]string {
	t.Helper()
	err := v.Err()
	if err == nil {
		return nil
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("not an apperr: %v", err)
	}
	return ae.Fields
}

// A partial update leaves missing fields alone, clears fields sent as null
// or "", normalises codes, and checks the pairs on the merged record.
func TestApplyPartialUpdate(t *testing.T) {
	from := civil.NewDate(2025, 1, 1)
	phone := "+420 111"
	iban := "CZ6508000000192000145399"
	cur := Driver{FirstName: "Jan", LastName: "Novák", Email: "jan@example.cz", Status: "active",
		Phone: &phone, IBAN: &iban, ContractFrom: &from, Flags: json.RawMessage(`{"a":1}`)}

	next := cur
	var v apperr.Validation
	apply(input(t, `{"phone": null, "middle_name": "  ", "citizenship": "sk", "swift": "gibaczpx", "unknown": 1, "internal_number": "X"}`), &next, false, czFacts, &v)
	if errs := fieldErrors(t, &v); errs != nil {
		t.Fatalf("unexpected errors %v", errs)
	}
	if next.Phone != nil || next.MiddleName != nil || *next.Citizenship != "SK" || *next.SWIFT != "GIBACZPX" {
		t.Fatalf("apply: %+v", next)
	}
	if next.IBAN != &iban || next.FirstName != "Jan" || next.ContractFrom != &from {
		t.Fatal("fields not sent were changed")
	}

	// Only contract_to is sent: checked against the stored contract_from,
	// reported on the field that was sent.
	next = cur
	v = apperr.Validation{}
	apply(input(t, `{"contract_to": "2024-12-31"}`), &next, false, czFacts, &v)
	errs := fieldErrors(t, &v)
	if got := errs["contract_to"]; len(got) != 1 || got[0] != "The contract to must be a date after contract from." {
		t.Fatalf("errors %v", errs)
	}

	// Required fields may not be cleared.
	next = cur
	v = apperr.Validation{}
	apply(input(t, `{"first_name": null, "email": "", "status": null, "contract_indefinite": null}`), &next, false, czFacts, &v)
	errs = fieldErrors(t, &v)
	for field, msg := range map[string]string{
		"first_name":          "The first name field is required.",
		"email":               "The email field is required.",
		"status":              "The status field is required.",
		"contract_indefinite": "The contract for an indefinite period must be true or false.",
	} {
		if got := errs[field]; len(got) != 1 || got[0] != msg {
			t.Errorf("%s: %v, want %q", field, got, msg)
		}
	}
}

// czFacts are a Czech company's facts on 28 November 2026.
var czFacts = Facts{Today: civil.NewDate(2026, 11, 28), Country: "CZ"}

// A birth date is neither later than the company's today nor before 1900;
// a phone is stored in E.164, read in the company's country when written
// without its prefix, and refused in words when it is not a number.
func TestBirthDateAndPhone(t *testing.T) {
	for _, c := range []struct {
		body  string
		facts Facts
		field string
		want  string // the message, or the stored value
	}{
		{`{"birth_date": "2026-11-29"}`, czFacts, "birth_date", "The birth date cannot be in the future."},
		{`{"birth_date": "2031-05-01"}`, czFacts, "birth_date", "The birth date cannot be in the future."},
		{`{"birth_date": "1899-12-31"}`, czFacts, "birth_date", "The birth date cannot be before 1900."},
		{`{"birth_date": "2026-11-28"}`, czFacts, "birth_date", "=2026-11-28"},
		{`{"birth_date": "1900-01-01"}`, czFacts, "birth_date", "=1900-01-01"},
		{`{"birth_date": "2026-02-30"}`, czFacts, "birth_date", "The birth date is not a valid date."},
		{`{"phone": "+420 abc"}`, czFacts, "phone", "The phone “+420 abc” is not a phone number: write its digits with the country code, such as +420 777 123 456."},
		{`{"phone": "+420 123"}`, czFacts, "phone", "=+420 123"},
		{`{"phone": "777 123 456"}`, Facts{Today: czFacts.Today}, "phone", "=777 123 456"},
		{`{"phone": "777 123 456"}`, czFacts, "phone", "=+420777123456"},
		{`{"phone": "601 234 567"}`, Facts{Today: czFacts.Today, Country: "PL"}, "phone", "=+48601234567"},
		{`{"phone": "+48 601-234-567"}`, czFacts, "phone", "=+48601234567"},
	} {
		d := Driver{FirstName: "Jan", LastName: "Novák", Email: "jan@example.cz", Status: "active"}
		var v apperr.Validation
		apply(input(t, c.body), &d, false, c.facts, &v)
		errs := fieldErrors(t, &v)
		if stored, ok := strings.CutPrefix(c.want, "="); ok {
			got := ""
			switch {
			case c.field == "phone" && d.Phone != nil:
				got = *d.Phone
			case c.field == "birth_date" && d.BirthDate != nil:
				got = d.BirthDate.String()
			}
			if errs != nil || got != stored {
				t.Errorf("%s: stored %q with %v, want %q", c.body, got, errs, stored)
			}
			continue
		}
		if got := errs[c.field]; len(got) != 1 || got[0] != c.want || d.Phone != nil || d.BirthDate != nil {
			t.Errorf("%s: %v (phone %v, birth date %v), want %q", c.body, errs, d.Phone, d.BirthDate, c.want)
		}
	}
}

func TestCheckDriverFields(t *testing.T) {
	allowed := input(t, `{"phone": "1", "iban": null, "registration_address": "x", "something_else": 1}`)
	if err := checkDriverFields(allowed); err != nil {
		t.Fatalf("allowed fields refused: %v", err)
	}
	for _, body := range []string{`{"phone": "1", "first_name": "X"}`, `{"status": "active"}`, `{"internal_number": "DRV-1"}`} {
		err := checkDriverFields(input(t, body))
		if apperr.KindOf(err) != apperr.KindForbidden {
			t.Errorf("%s: %v, want Forbidden", body, err)
		}
	}
}

func TestCursorSignature(t *testing.T) {
	s := &Service{cursorKey: []byte("k1")}
	key := "2024-01-02"
	c := cursor{SortBy: "hire_date", SortOrder: "desc", Key: &key, ID: uuid.New()}
	raw := s.encodeCursor(c)
	got, err := s.decodeCursor(raw)
	if err != nil || got.ID != c.ID || *got.Key != key || got.SortOrder != "desc" {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	// A null key is valid only for a nullable sort column.
	if _, err := s.decodeCursor(s.encodeCursor(cursor{SortBy: "hire_date", SortOrder: "asc", ID: c.ID})); err != nil {
		t.Fatalf("null hire_date key: %v", err)
	}
	body, sig, _ := strings.Cut(raw, ".")
	forged := []string{
		"",
		"garbage",
		body + "." + sig[:len(sig)-2] + "AA",
		strings.ToUpper(body[:4]) + body[4:] + "." + sig,
		(&Service{cursorKey: []byte("k2")}).encodeCursor(c), // another key
		s.encodeCursor(cursor{SortBy: "email", SortOrder: "asc", Key: &key, ID: c.ID}),
		s.encodeCursor(cursor{SortBy: "last_name", SortOrder: "asc", ID: c.ID}),
	}
	for _, f := range forged {
		if _, err := s.decodeCursor(f); apperr.KindOf(err) != apperr.KindBadRequest {
			t.Errorf("decodeCursor(%q) = %v, want BadRequest", f, err)
		}
	}
}

func TestSearchWordsEscapeWildcards(t *testing.T) {
	got := searchWords("  Novák  50%_off a\\b 1 2 3 4 5 6")
	want := []string{"novák", `50\%\_off`, `a\\b`, "1", "2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("searchWords = %q, want %q", got, want)
	}
}

func TestInputSet(t *testing.T) {
	var in Input
	if err := in.Set("phone", "+420 777 123 456"); err != nil {
		t.Fatal(err)
	}
	if err := in.Set("middle_name", nil); err != nil {
		t.Fatal(err)
	}
	mid := "Petr"
	d := Driver{MiddleName: &mid}
	var v apperr.Validation
	apply(in, &d, false, czFacts, &v)
	if v.Err() != nil || d.Phone == nil || *d.Phone != "+420777123456" || d.MiddleName != nil {
		t.Fatalf("apply after Set: %+v, %v", d, v.Err())
	}
}

// Every writable field has a name for messages in every language that
// messages render in (a missing one would show "field.x" to the reader).
func TestFieldsHaveMessageNames(t *testing.T) {
	for name := range fields {
		for _, l := range i18n.Langs {
			if !l.Has("field." + name) {
				t.Errorf("field %s has no %s name for messages", name, l)
			}
		}
	}
}
