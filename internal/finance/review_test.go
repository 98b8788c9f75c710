package finance

import (
	"testing"

	"github.com/konvoj/konvoj/internal/civil"
)

func TestReviewDueCountsBusinessDays(t *testing.T) {
	cases := []struct{ filed, due civil.Date }{
		{civil.NewDate(2026, 11, 23), civil.NewDate(2026, 11, 30)}, // Monday → next Monday
		{civil.NewDate(2026, 11, 25), civil.NewDate(2026, 12, 2)},  // Wednesday → next Wednesday
		{civil.NewDate(2026, 11, 27), civil.NewDate(2026, 12, 4)},  // Friday → next Friday
		{civil.NewDate(2026, 11, 28), civil.NewDate(2026, 12, 4)},  // Saturday → Friday (Mon..Fri)
		{civil.NewDate(2026, 11, 29), civil.NewDate(2026, 12, 4)},  // Sunday → Friday
		{civil.NewDate(2026, 12, 31), civil.NewDate(2027, 1, 7)},   // across the year (holidays count as business days)
	}
	for _, c := range cases {
		if got := ReviewDue(c.filed); got != c.due {
			t.Errorf("ReviewDue(%s) = %s, want %s", c.filed, got, c.due)
		}
	}
}
