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
