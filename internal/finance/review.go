package finance

import (
	"time"

	"github.com/konvoj/konvoj/internal/civil"
)

// ReviewBusinessDays is how many business days HR has to review a
// dispute (docs/finance.md).
const ReviewBusinessDays = 5

// ReviewDue is the day a dispute filed on filed (a day in the company's
// time zone) is due to be reviewed: ReviewBusinessDays business days
// (Monday to Friday) after it. Public holidays are not counted out.
func ReviewDue(filed civil.Date) civil.Date {
	d := filed
	for left := ReviewBusinessDays; left > 0; {
		d = d.AddDays(1)
		if wd := d.Time().Weekday(); wd != time.Saturday && wd != time.Sunday {
			left--
		}
	}
	return d
}
