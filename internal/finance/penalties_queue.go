package finance

import (
	"context"
	"time"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/paging"
)

// ReviewBusinessDays is how many business days HR has to review a dispute
// (docs/finance.md, "Dispute review").
const ReviewBusinessDays = 5

// ReviewDue is the date a dispute filed at disputedAt is to be reviewed
// by: ReviewBusinessDays business days (Monday to Friday) after the filing
// date in the company's time zone loc.
func ReviewDue(disputedAt time.Time, loc *time.Location) civil.Date {
	return civil.DateOf(disputedAt.In(loc)).AddBusinessDays(ReviewBusinessDays)
}

// QueueFilter narrows the company-wide penalty list.
type QueueFilter struct {
	// Statuses are the penalty statuses listed; none means disputed only
	// (the dispute queue).
	Statuses []string
	// Page is the page asked for: 50 penalties a page when it has no size.
	Page paging.Request
}

// QueuedPenalty is a penalty of the company-wide list with its driver and,
// while it is disputed, the date its review is due.
type QueuedPenalty struct {
	Penalty
	DriverName   string
	DriverNumber string
	// ReviewDue is set for a disputed penalty (ReviewDue of its filing).
	ReviewDue *civil.Date
}

// PenaltyQueue is a page of the company-wide penalty list and the number
// of all penalties that match.
type PenaltyQueue struct {
	paging.Page[QueuedPenalty]
}

// PenaltyQueue lists the penalties of the whole company (the dispute
// queue): by status (default disputed), oldest first by the time the
// dispute was filed (a penalty never disputed by its creation), with the
// driver's name and the evidence files. A driver caller sees only its own
// penalties.
func (s *Service) PenaltyQueue(ctx context.Context, p auth.Principal, f QueueFilter) (PenaltyQueue, error) {
	company, err := collectionScope(p, auth.PenaltiesRead)
	if err != nil {
		return PenaltyQueue{}, err
	}
	var v apperr.Validation
	checkValues(&v, "status", f.Statuses, PenaltyStatuses)
	if err := v.Err(); err != nil {
		return PenaltyQueue{}, err
	}
	if len(f.Statuses) == 0 {
		f.Statuses = []string{PenaltyDisputed}
	}
	f.Page = f.Page.Or(50)
	rows, total, err := queueRows(ctx, s.db, company.CompanyID(), company.Only(), f)
	if err != nil {
		return PenaltyQueue{}, err
	}
	pens := make([]Penalty, len(rows))
	for i := range rows {
		pens[i] = rows[i].Penalty
	}
	if err := withEvidence(ctx, s.db, company.CompanyID(), pens); err != nil {
		return PenaltyQueue{}, err
	}
	loc := p.Location()
	for i := range rows {
		rows[i].Penalty = pens[i]
		if rows[i].Status == PenaltyDisputed && rows[i].DisputeSubmittedAt != nil {
			due := ReviewDue(*rows[i].DisputeSubmittedAt, loc)
			rows[i].ReviewDue = &due
		}
	}
	return PenaltyQueue{paging.New(rows, total, f.Page)}, nil
}
