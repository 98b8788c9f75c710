// Package civil holds the calendar date type used in requests, responses and
// SQL `date` columns: YYYY-MM-DD, with no time zone attached.
package civil

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Date is a calendar date, held as midnight UTC.
type Date struct{ t time.Time }

// NewDate returns the date of year, month, day (normalised like time.Date).
func NewDate(year int, month time.Month, day int) Date {
	return Date{time.Date(year, month, day, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date { return NewDate(t.Year(), t.Month(), t.Day()) }

// Parse reads YYYY-MM-DD and rejects impossible dates such as 2026-02-30.
func Parse(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a valid date (YYYY-MM-DD)", s)
	}
	return Date{t}, nil
}

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time { return d.t }

// IsZero reports whether d is the zero date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// String formats the date as YYYY-MM-DD.
func (d Date) String() string { return d.t.Format(time.DateOnly) }

// AddDays returns the date n days later.
func (d Date) AddDays(n int) Date { return Date{d.t.AddDate(0, 0, n)} }

// AddMonths returns the date n months later (normalised like time.AddDate).
func (d Date) AddMonths(n int) Date { return Date{d.t.AddDate(0, n, 0)} }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.t.After(e.t) }

// DaysUntil returns the whole days from d to e (negative when e is earlier).
func (d Date) DaysUntil(e Date) int { return int(e.t.Sub(d.t).Hours() / 24) }

// MonthStart returns the first day of d's month.
func (d Date) MonthStart() Date { return NewDate(d.t.Year(), d.t.Month(), 1) }

// MonthEnd returns the last day of d's month.
func (d Date) MonthEnd() Date { return NewDate(d.t.Year(), d.t.Month()+1, 0) }

// Year, Month and Day are the date's parts.
func (d Date) Year() int         { return d.t.Year() }
func (d Date) Month() time.Month { return d.t.Month() }
func (d Date) Day() int          { return d.t.Day() }

// MarshalJSON writes "YYYY-MM-DD" (appended in place: a response holds
// dozens of dates, and json.Marshal of the string cost four allocations
// each).
func (d Date) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(`"2006-01-02"`))
	b = append(b, '"')
	b = d.t.AppendFormat(b, time.DateOnly)
	return append(b, '"'), nil
}

// UnmarshalJSON reads "YYYY-MM-DD".
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a date must be a string YYYY-MM-DD")
	}
	p, err := Parse(s)
	if err != nil {
		return err
	}
	*d = p
	return nil
}

// Scan reads a SQL date.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d = NewDate(v.Year(), v.Month(), v.Day())
		return nil
	case string:
		p, err := Parse(v)
		if err != nil {
			return err
		}
		*d = p
		return nil
	case nil:
		*d = Date{}
		return nil
	}
	return fmt.Errorf("civil.Date: cannot scan %T", src)
}

// Value writes a SQL date.
func (d Date) Value() (driver.Value, error) {
	if d.IsZero() {
		return nil, nil
	}
	return d.String(), nil
}

// DateValue writes a SQL date for pgx directly (pgtype.DateValuer). Without
// it pgx takes the driver.Valuer's text, fails to encode that in the binary
// format (building an error it then drops) and encodes it again as text:
// every date parameter of every statement.
func (d Date) DateValue() (pgtype.Date, error) {
	if d.IsZero() {
		return pgtype.Date{}, nil
	}
	return pgtype.Date{Time: d.t, Valid: true}, nil
}

// ScanDate reads a SQL date from pgx directly (pgtype.DateScanner), without
// the text round trip of Scan. NULL is the zero Date, as with Scan.
func (d *Date) ScanDate(v pgtype.Date) error {
	if !v.Valid {
		*d = Date{}
		return nil
	}
	if v.InfinityModifier != pgtype.Finite {
		return fmt.Errorf("civil.Date: cannot scan an infinite date")
	}
	*d = DateOf(v.Time)
	return nil
}

// AddBusinessDays returns the date n business days (Monday to Friday) after
// d; public holidays are not known and count as business days. From a
// Saturday or Sunday the first day counted is the Monday.
func (d Date) AddBusinessDays(n int) Date {
	for n > 0 {
		d = d.AddDays(1)
		if wd := d.t.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return d
}
