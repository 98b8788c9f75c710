package documents

import (
	"testing"

	"github.com/konvoj/konvoj/internal/civil"
)

func TestStatusThresholds(t *testing.T) {
	today := civil.NewDate(2026, 11, 21)
	cases := []struct {
		days int
		want string
	}{
		{-30, "expired"}, {-1, "expired"}, {0, "expiring_soon"}, {5, "expiring_soon"}, {14, "expiring_soon"},
		{15, "warning"}, {30, "warning"}, {31, "valid"}, {400, "valid"},
	}
	for _, c := range cases {
		until := today.AddDays(c.days)
		if got := Status(true, &until, today); got != c.want {
			t.Errorf("%d days: %s, want %s", c.days, got, c.want)
		}
	}
	if got := Status(false, nil, today); got != "no_data" {
		t.Errorf("no file: %s", got)
	}
	until := today.AddDays(100)
	if got := Status(false, &until, today); got != "no_data" {
		t.Errorf("no file but a date: %s", got)
	}
	if got := Status(true, nil, today); got != "valid" {
		t.Errorf("file without expiry: %s", got)
	}
}

func TestLeadDaysAndStages(t *testing.T) {
	want := map[string]int{
		"passport": 90, "visa_biometrics": 90, "residence_permit": 90, "work_permit": 90,
		"a1_eu": 60, "a1_switzerland": 60,
		"declaration": 30, "health_insurance": 30, "travel_insurance": 30, "drivers_license": 30,
		"adr_certificate": 30, "tachograph_card": 30, "code_95": 30, "medical_examination": 30,
	}
	for _, ty := range Types {
		if got := LeadDays(ty); got != want[ty] {
			t.Errorf("LeadDays(%s) = %d, want %d", ty, got, want[ty])
		}
	}
	today := civil.NewDate(2026, 11, 21)
	cases := []struct {
		docType string
		days    int
		want    string
	}{
		{"passport", 90, StageLead}, {"passport", 91, ""}, {"a1_eu", 60, StageLead}, {"a1_eu", 61, ""},
		{"code_95", 30, StageLead}, {"code_95", 31, ""}, {"code_95", 15, StageLead}, {"code_95", 14, StageExpiringSoon},
		{"passport", 0, StageExpiringSoon}, {"passport", -1, StageExpired},
	}
	for _, c := range cases {
		until := today.AddDays(c.days)
		if got := Stage(c.docType, true, &until, today); got != c.want {
			t.Errorf("%s, %d days: stage %q, want %q", c.docType, c.days, got, c.want)
		}
	}
	if got := Stage("passport", false, nil, today); got != "" {
		t.Errorf("no file: stage %q", got)
	}
}
