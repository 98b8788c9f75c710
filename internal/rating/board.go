package rating

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// The read-only views behind the rating pages (docs/rating.md, "Pages"):
// the whole ranking board of a month, a driver's rating inputs (what the
// page names as the way to raise the score), and the preview of a
// configuration change. None writes or locks anything.

// BoardRow is one driver of a month's ranking board: its stored snapshot
// with what the ranking page filters on.
type BoardRow struct {
	DriverID       uuid.UUID
	InternalNumber string
	FirstName      string
	LastName       string
	OfficeID       *uuid.UUID
	Status         string
	TotalScore     decimal.Decimal
	RankPercentile int
	PreviousScore  *decimal.Decimal
	ScoreChange    *decimal.Decimal
	// Weakest is the applicable component with the lowest score (on a tie
	// the heavier, then the first in display order; "" when none is
	// applicable) and WeakestScore its score.
	Weakest      string
	WeakestScore decimal.Decimal
	// SearchText is the driver's lower-case, accent-free name, e-mail and
	// internal number (the drivers list's search text).
	SearchText string
}

// Board lists every stored snapshot of the company's month (default: the
// current month, as the background refresh last stored it) with the
// driver's office, status and weakest component, ordered by total_score
// descending then internal number. The board is the whole company's: a
// caller limited to its own rating is 403 Forbidden. read gives the month
// asked for (nil: the current one) after the role check (403 before 400).
func (s *Service) Board(ctx context.Context, p auth.Principal, read func() (*Period, error)) ([]BoardRow, Period, error) {
	if err := wholeCompany(p); err != nil {
		return nil, Period{}, err
	}
	period, err := read()
	if err != nil {
		return nil, Period{}, err
	}
	month := s.currentPeriod(p)
	if period != nil {
		month = *period
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return nil, Period{}, err
	}
	rows, err := boardRows(ctx, s.db, p.CompanyID, month, nil)
	return rows, month, err
}

// boardSQL reads a month's board. The weakest component is kept on the
// snapshot by a trigger (migration 00025), so the page neither decodes
// 2,000 JSON objects nor has the database pick it on every view.
const boardSQL = `
SELECT s.driver_id, d.internal_number, d.first_name, d.last_name, d.office_id, d.status, d.search_text,
	s.total_score::text, coalesce(s.rank_percentile, 100), s.previous_score::text,
	s.weakest_metric, s.weakest_score::text
FROM rating_snapshots s
JOIN drivers d ON d.company_id = s.company_id AND d.id = s.driver_id AND d.deleted_at IS NULL
WHERE s.company_id = $1 AND s.rating_period = $2 AND ($3::uuid IS NULL OR s.driver_id = $3)
ORDER BY s.total_score DESC, d.internal_seq, s.id`

func boardRows(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, month Period, own *uuid.UUID) ([]BoardRow, error) {
	rows, err := db.Query(ctx, boardSQL, companyID, month.First(), own)
	if err != nil {
		return nil, fmt.Errorf("rating board %s: %w", month, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, r *BoardRow) error {
		var total string
		var prev, weakest, weakScore *string
		err := row.Scan(&r.DriverID, &r.InternalNumber, &r.FirstName, &r.LastName, &r.OfficeID, &r.Status, &r.SearchText,
			&total, &r.RankPercentile, &prev, &weakest, &weakScore)
		if err != nil {
			return err
		}
		if r.TotalScore, err = decimal.NewFromString(total); err != nil {
			return fmt.Errorf("rating board score %q: %w", total, err)
		}
		if prev != nil {
			pv, err := decimal.NewFromString(*prev)
			if err != nil {
				return fmt.Errorf("rating board previous score %q: %w", *prev, err)
			}
			ch := r.TotalScore.Sub(pv)
			r.PreviousScore, r.ScoreChange = &pv, &ch
		}
		if weakest != nil && weakScore != nil {
			r.Weakest = *weakest
			if r.WeakestScore, err = decimal.NewFromString(*weakScore); err != nil {
				return fmt.Errorf("rating board component score %q: %w", *weakScore, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rating board %s: %w", month, err)
	}
	return out, nil
}

// inputs returns what driver d's rating of the month is computed from
// (its required documents as of the month's last day, penalties, filled
// profile fields, renewals, orders), read from current data like the
// current month's rating, without writing or locking. The driver's rating
// page names from them what would raise the score.
func (s *Service) inputs(ctx context.Context, p auth.Principal, d ratedDriver, period *Period) (Inputs, error) {
	month := s.currentPeriod(p)
	if period != nil {
		month = *period
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return Inputs{}, err
	}
	in, err := gatherInputs(ctx, s.db, d.CompanyID, month, []uuid.UUID{d.ID})
	if err != nil {
		return Inputs{}, err
	}
	if len(in) == 0 {
		return Inputs{DriverID: d.ID}, nil
	}
	return in[0], nil
}

// PreviewRow is one driver in the preview of a configuration change: its
// total and place under the current configuration and under the new one.
type PreviewRow struct {
	DriverID                          uuid.UUID
	InternalNumber                    string
	FirstName, LastName               string
	Before, After                     decimal.Decimal
	PlaceBefore, PlaceAfter           int // 1 = best; tied totals share a place
	PercentileBefore, PercentileAfter int
}

// Preview is how a month's ranking would change under a new configuration.
type Preview struct {
	Period Period
	// Config is the merged configuration the preview used.
	Config Config
	// Rows are ordered by the new place, then internal number.
	Rows []PreviewRow
}

// PreviewConfig merges the update into the company's configuration and
// validates it exactly as UpdateConfig does (the same 422), then scores
// every driver the month's rating covers (active drivers and drivers with
// a snapshot; default: the month before the current one) under the
// current and the merged configuration from current data, without
// storing anything (admin, HR). Both sides use the same inputs, so the
// difference is the configuration's alone. read fills the update once the
// company is found the caller's (403 and 404 before 400).
func (s *Service) PreviewConfig(ctx context.Context, p auth.Principal, companyID uuid.UUID, read func(*ConfigUpdate) error, period *Period) (Preview, error) {
	cfg, err := loadConfigFor(ctx, s.db, p, auth.RatingManage, companyID)
	if err != nil {
		return Preview{}, err
	}
	var u ConfigUpdate
	if err := read(&u); err != nil {
		return Preview{}, err
	}
	month := s.currentPeriod(p).Prev()
	if period != nil {
		month = *period
	}
	merged, err := cfg.Merge(u)
	if err != nil {
		return Preview{}, err
	}
	co, err := loadCompany(ctx, s.db, companyID)
	if err != nil {
		return Preview{}, err
	}
	ids, err := companyRunDrivers(ctx, s.db, companyID, month)
	if err != nil {
		return Preview{}, err
	}
	inputs, err := gatherInputs(ctx, s.db, companyID, month, ids)
	if err != nil {
		return Preview{}, err
	}
	names, err := driverNames(ctx, s.db, companyID, inputs)
	if err != nil {
		return Preview{}, err
	}
	out := Preview{Period: month, Config: merged, Rows: make([]PreviewRow, len(inputs))}
	before := make([]decimal.Decimal, len(inputs))
	after := make([]decimal.Decimal, len(inputs))
	for i, in := range inputs {
		before[i] = Score(in, cfg, month, co.Currency).Total
		after[i] = Score(in, merged, month, co.Currency).Total
		n := names[in.DriverID]
		out.Rows[i] = PreviewRow{DriverID: in.DriverID, InternalNumber: n.number, FirstName: n.first, LastName: n.last,
			Before: before[i], After: after[i]}
	}
	placesB, pctB := Places(before)
	placesA, pctA := Places(after)
	for i := range out.Rows {
		out.Rows[i].PlaceBefore, out.Rows[i].PercentileBefore = placesB[i], pctB[i]
		out.Rows[i].PlaceAfter, out.Rows[i].PercentileAfter = placesA[i], pctA[i]
	}
	sort.SliceStable(out.Rows, func(i, j int) bool { return out.Rows[i].PlaceAfter < out.Rows[j].PlaceAfter })
	return out, nil
}

// Places gives each total its place (1 = highest; equal totals share the
// better place) and its rank percentile by the rule of docs/rating.md.
func Places(totals []decimal.Decimal) (places, percentiles []int) {
	n := len(totals)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return totals[idx[a]].GreaterThan(totals[idx[b]]) })
	places, percentiles = make([]int, n), make([]int, n)
	for k := 0; k < n; {
		j := k
		for j < n && totals[idx[j]].Equal(totals[idx[k]]) {
			j++
		}
		// idx[k:j] tie; n-k totals are at or below them.
		for _, i := range idx[k:j] {
			places[i] = k + 1
			percentiles[i] = percentile(n-k, n)
		}
		k = j
	}
	return places, percentiles
}

type driverName struct{ number, first, last string }

func driverNames(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, inputs []Inputs) (map[uuid.UUID]driverName, error) {
	ids := make([]uuid.UUID, len(inputs))
	for i, in := range inputs {
		ids[i] = in.DriverID
	}
	rows, err := db.Query(ctx, `SELECT id, internal_number, first_name, last_name FROM drivers WHERE company_id = $1 AND id = ANY($2)`,
		companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("names of rated drivers: %w", err)
	}
	defer rows.Close()
	out := make(map[uuid.UUID]driverName, len(ids))
	for rows.Next() {
		var id uuid.UUID
		var n driverName
		if err := rows.Scan(&id, &n.number, &n.first, &n.last); err != nil {
			return nil, fmt.Errorf("scan driver name: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}
