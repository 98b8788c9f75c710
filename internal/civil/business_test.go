package civil

import "testing"

func TestAddBusinessDays(t *testing.T) {
	for _, c := range []struct{ from, want string }{
		{"2026-11-23", "2026-11-30"}, // Monday → next Monday
		{"2026-11-26", "2026-12-03"}, // Thursday → Thursday after the weekend
		{"2026-11-27", "2026-12-04"}, // Friday → Friday
		{"2026-11-28", "2026-12-04"}, // Saturday → the Friday after
		{"2026-11-29", "2026-12-04"}, // Sunday → the Friday after
		{"2026-12-31", "2027-01-07"}, // across the year; holidays are not known
	} {
		d, err := Parse(c.from)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.AddBusinessDays(5).String(); got != c.want {
			t.Errorf("5 business days after %s (%s) = %s, want %s", c.from, d.Time().Weekday(), got, c.want)
		}
	}
}
