package rating

import (
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/paging"
)

// RecalculateInput is the body of a recalculation.
type RecalculateInput struct {
	Period string `json:"period"` // YYYY-MM; empty: the current month
}

// month reads the body's period (def when empty); a malformed one is 422.
func (in RecalculateInput) month(def Period) (Period, error) {
	if in.Period == "" {
		return def, nil
	}
	month, err := ParsePeriod(in.Period)
	if err != nil {
		return Period{}, apperr.Invalid("period", "msg.rating_read.period_month")
	}
	return month, nil
}

// HistoryFilter selects the months of a driver's history.
type HistoryFilter struct {
	From, To *civil.Date // nil: 6 months ago, today
	Page     paging.Request
}

// RankingFilter selects and orders the company ranking.
type RankingFilter struct {
	Period    *Period // nil: the current month
	SortBy    string  // total_score (default), rank_percentile, internal_number, last_name
	SortOrder string  // asc, desc; default desc for scores, asc for the others
	Page      paging.Request
}

// rankingOrders maps sort_by to its ORDER BY column (never pasted from
// input); internal_seq and id break ties.
var rankingOrders = map[string]string{
	"total_score":     "s.total_score",
	"rank_percentile": "s.rank_percentile",
	"internal_number": "d.internal_seq",
	"last_name":       "d.last_name",
}

// ranking is a validated ranking query.
type ranking struct {
	month         Period
	column, order string // ORDER BY column and direction
	own           *uuid.UUID
	page          paging.Request
}

// check validates the ranking filter for a month that may not be after
// current, filling in the default sort.
func (f RankingFilter) check(month, current Period) (ranking, error) {
	var v apperr.Validation
	if f.SortBy == "" {
		f.SortBy = "total_score"
	}
	col, ok := rankingOrders[f.SortBy]
	if !ok {
		v.Add("sort_by", "msg.rating.sort_by")
	}
	if f.SortOrder == "" {
		f.SortOrder = "asc"
		if f.SortBy == "total_score" || f.SortBy == "rank_percentile" {
			f.SortOrder = "desc"
		}
	}
	if f.SortOrder != "asc" && f.SortOrder != "desc" {
		v.Add("sort_order", "msg.rating.sort_order")
	}
	if month.After(current) {
		v.Add("period", "msg.rating_read.period_future")
	}
	if err := v.Err(); err != nil {
		return ranking{}, err
	}
	return ranking{month: month, column: col, order: f.SortOrder, page: f.Page}, nil
}
