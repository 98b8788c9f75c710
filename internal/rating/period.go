package rating

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/konvoj/konvoj/internal/civil"
)

// Period is a rating month, held as its first day.
type Period struct{ first civil.Date }

// PeriodOf returns the month containing d.
func PeriodOf(d civil.Date) Period { return Period{d.MonthStart()} }

// MonthOf returns the period year-month.
func MonthOf(year int, month time.Month) Period { return Period{civil.NewDate(year, month, 1)} }

// ParsePeriod reads YYYY-MM.
func ParsePeriod(s string) (Period, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil || len(s) != len("2006-01") {
		return Period{}, fmt.Errorf("%q is not a month (YYYY-MM)", s)
	}
	return MonthOf(t.Year(), t.Month()), nil
}

// CurrentPeriod is the month of "today" in the location.
func CurrentPeriod(loc *time.Location, now time.Time) Period {
	return PeriodOf(civil.DateOf(now.In(loc)))
}

// First returns the first day of the month.
func (p Period) First() civil.Date { return p.first }

// Last returns the last day of the month.
func (p Period) Last() civil.Date { return p.first.MonthEnd() }

// Prev returns the month before.
func (p Period) Prev() Period { return Period{p.first.AddMonths(-1)} }

// Next returns the month after.
func (p Period) Next() Period { return Period{p.first.AddMonths(1)} }

// Index counts months since year 0, so the distance between two periods is
// the difference of their indexes (the trend's x axis).
func (p Period) Index() int { return p.first.Year()*12 + int(p.first.Month()) - 1 }

// After reports whether p is a later month than q.
func (p Period) After(q Period) bool { return p.first.After(q.first) }

// IsZero reports whether p is unset.
func (p Period) IsZero() bool { return p.first.IsZero() }

// String formats YYYY-MM.
func (p Period) String() string { return p.first.Time().Format("2006-01") }

// MarshalJSON writes "YYYY-MM".
func (p Period) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// Scan reads a SQL date (the first day of the month).
func (p *Period) Scan(src any) error {
	var d civil.Date
	if err := d.Scan(src); err != nil {
		return err
	}
	*p = PeriodOf(d)
	return nil
}
