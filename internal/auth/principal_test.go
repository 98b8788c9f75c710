package auth

import (
	"testing"
	"time"
)

// A company's zone is loaded once and then shared; an unknown or empty
// zone is UTC.
func TestPrincipalLocation(t *testing.T) {
	p := Principal{CompanyTimezone: "Pacific/Auckland"}
	first := p.Location()
	if first.String() != "Pacific/Auckland" {
		t.Fatalf("Location() = %s", first)
	}
	if again := p.Location(); again != first {
		t.Error("the zone was loaded again instead of reused")
	}
	summer := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC).In(first)
	if _, off := summer.Zone(); off != 13*3600 {
		t.Errorf("Auckland in January is UTC+%d h, want 13", off/3600)
	}
	for _, tz := range []string{"", "Mars/Olympus"} {
		if got := (Principal{CompanyTimezone: tz}).Location(); got != time.UTC {
			t.Errorf("zone %q gives %s, want UTC", tz, got)
		}
	}
}
