package rating

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
)

// Service rates drivers and serves ratings, history, ranking and the
// configuration.
type Service struct {
	db  *pgxpool.Pool
	now func() time.Time
}

// NewService returns a rating service.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db, now: time.Now} }

// Rating is a driver's snapshot for a month.
type Rating struct {
	// ID is the snapshot's id (the snapshot_id of a recalculation).
	ID             uuid.UUID                `json:"id"`
	DriverID       uuid.UUID                `json:"driver_id"`
	TotalScore     json.Number              `json:"total_score"`
	RatingPeriod   Period                   `json:"rating_period"`
	RankPercentile int                      `json:"rank_percentile"`
	PreviousScore  *json.Number             `json:"previous_score"`
	ScoreChange    *json.Number             `json:"score_change"`
	Components     map[string]ComponentView `json:"components"`
	CalculatedAt   time.Time                `json:"calculated_at"`
	CreatedAt      time.Time                `json:"created_at"`
}

// currentPeriod is the company's current month.
func (s *Service) currentPeriod(p auth.Principal) Period { return CurrentPeriod(p.Location(), s.now()) }

func (s *Service) checkNotFuture(p auth.Principal, period Period) error {
	if period.After(s.currentPeriod(p)) {
		return apperr.Invalid("period", "The period may not be a future month.")
	}
	return nil
}

// queryPeriod parses a period query parameter (YYYY-MM; empty: def); a
// malformed one is 400.
func queryPeriod(raw string, def Period) (Period, error) {
	if raw == "" {
		return def, nil
	}
	p, err := ParsePeriod(raw)
	if err != nil {
		return Period{}, apperr.BadRequest("The period parameter must be a month (YYYY-MM).")
	}
	return p, nil
}

// queryDate parses a date query parameter; a malformed one is 400.
func queryDate(name, raw string, def civil.Date) (civil.Date, error) {
	if raw == "" {
		return def, nil
	}
	d, err := civil.Parse(raw)
	if err != nil {
		return civil.Date{}, apperr.BadRequest("The %s parameter must be a date (YYYY-MM-DD).", name)
	}
	return d, nil
}

// Get returns the driver's rating for the month (YYYY-MM; empty: the
// current month).
// The current month is computed on demand, on every read, so it reflects
// today's data (and refreshes the month's percentiles); a past month is the
// stored snapshot, written by the monthly job or a recalculation; without
// one it is 404.
func (s *Service) Get(ctx context.Context, p auth.Principal, driverID uuid.UUID, period string) (Rating, error) {
	if err := p.Require(auth.RatingRead); err != nil {
		return Rating{}, err
	}
	if _, err := tenants.CheckDriver(ctx, s.db, p, auth.RatingRead, driverID); err != nil {
		return Rating{}, err
	}
	current := s.currentPeriod(p)
	month, err := queryPeriod(period, current)
	if err != nil {
		return Rating{}, err
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return Rating{}, err
	}
	if month != current {
		r, err := readRating(ctx, s.db, driverID, month)
		if !errors.Is(err, apperr.ErrNotFound) {
			return r, err
		}
		// A past month without a snapshot (the monthly job has not rated it,
		// e.g. for a company created since) is rated now, like the current one.
	}
	var r Rating
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := rateDriverTx(ctx, tx, p.CompanyID, month, driverID); err != nil {
			return err
		}
		var err error
		r, err = readRating(ctx, tx, driverID, month)
		return err
	})
	return r, err
}

func readRating(ctx context.Context, db postgres.DBTX, driverID uuid.UUID, period Period) (Rating, error) {
	var r Rating
	var total string
	var prev, change *string
	err := db.QueryRow(ctx, `
		SELECT id, driver_id, rating_period, total_score::text, coalesce(rank_percentile, 100),
			previous_score::text, (total_score - previous_score)::text, components, calculated_at, created_at
		FROM rating_snapshots WHERE driver_id = $1 AND rating_period = $2`, driverID, period.First()).
		Scan(&r.ID, &r.DriverID, &r.RatingPeriod, &total, &r.RankPercentile, &prev, &change, &r.Components, &r.CalculatedAt, &r.CreatedAt)
	if err == pgx.ErrNoRows {
		return Rating{}, &apperr.Error{Kind: apperr.KindNotFound,
			Message: fmt.Sprintf("No rating for %s: past months are rated by the monthly job or by a recalculation.", period)}
	}
	if err != nil {
		return Rating{}, fmt.Errorf("read rating of driver %s %s: %w", driverID, period, err)
	}
	r.TotalScore = json.Number(total)
	r.PreviousScore, r.ScoreChange = numPtr(prev), numPtr(change)
	if r.Components == nil {
		r.Components = map[string]ComponentView{}
	}
	return r, nil
}

func numPtr(s *string) *json.Number {
	if s == nil {
		return nil
	}
	n := json.Number(*s)
	return &n
}

// Recalculated is the answer of a recalculation.
type Recalculated struct {
	Message      string      `json:"message"`
	SnapshotID   uuid.UUID   `json:"snapshot_id"`
	TotalScore   json.Number `json:"total_score"`
	CalculatedAt time.Time   `json:"calculated_at"`
}

// RecalculateInput is the body of a recalculation.
type RecalculateInput struct {
	Period string `json:"period"` // YYYY-MM; empty: the current month
}

// Recalculate recomputes the driver's snapshot for the month and refreshes
// the month's percentiles (admin, HR). bodyErr is the request body's
// decoding error, reported only after the permission checks (docs/errors.md).
func (s *Service) Recalculate(ctx context.Context, p auth.Principal, driverID uuid.UUID, in RecalculateInput, bodyErr error) (Recalculated, error) {
	if err := p.Require(auth.RatingManage); err != nil {
		return Recalculated{}, err
	}
	if _, err := tenants.CheckDriver(ctx, s.db, p, auth.RatingManage, driverID); err != nil {
		return Recalculated{}, err
	}
	if bodyErr != nil {
		return Recalculated{}, bodyErr
	}
	period := in.Period
	month := s.currentPeriod(p)
	if period != "" {
		var err error
		if month, err = ParsePeriod(period); err != nil {
			return Recalculated{}, apperr.Invalid("period", "The period must be a month in the form YYYY-MM.")
		}
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return Recalculated{}, err
	}
	var w written
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		w, err = rateDriverTx(ctx, tx, p.CompanyID, month, driverID)
		return err
	})
	if err != nil {
		return Recalculated{}, err
	}
	return Recalculated{
		Message:      fmt.Sprintf("Rating for %s recalculated.", month),
		SnapshotID:   w.SnapshotID,
		TotalScore:   json.Number(w.Total.StringFixed(2)),
		CalculatedAt: w.CalculatedAt,
	}, nil
}

// rateDriverTx rates one driver for the month, together with every active
// driver of the company that has no snapshot of that month yet: the month's
// rank_percentile compares a driver with the drivers rated in the month
// (docs/rating.md), and this makes that the whole active company from the
// first read or recalculation on, whatever the order of the reads. Only
// the first rating of a month pays for the rest of the company.
func rateDriverTx(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, driverID uuid.UUID) (written, error) {
	// Under the month's lock, so concurrent first reads of a month rate the
	// rest of the company once, not once each.
	if err := lockMonth(ctx, tx, companyID, period); err != nil {
		return written{}, err
	}
	rows, err := tx.Query(ctx, `
		SELECT d.id FROM drivers d
		WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.status = 'active' AND d.id <> $3
			AND NOT EXISTS (SELECT 1 FROM rating_snapshots s WHERE s.driver_id = d.id AND s.rating_period = $2)`,
		companyID, period.First(), driverID)
	if err != nil {
		return written{}, fmt.Errorf("drivers of company %s not rated in %s: %w", companyID, period, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return written{}, fmt.Errorf("drivers of company %s not rated in %s: %w", companyID, period, err)
	}
	w, err := rateTx(ctx, tx, companyID, period, append(ids, driverID))
	if err != nil {
		return written{}, err
	}
	for _, x := range w {
		if x.DriverID == driverID {
			return x, nil
		}
	}
	return written{}, fmt.Errorf("rate driver %s %s: no snapshot written", driverID, period)
}

// RateCompany rates every active driver of the company (and every driver
// already rated that month) for the month, in one transaction, and marks
// the month done. Idempotent: running it again replaces the snapshots. It is
// the monthly job's work and takes no principal.
func (s *Service) RateCompany(ctx context.Context, companyID uuid.UUID, period Period) (int, error) {
	var n int
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		w, err := rateTx(ctx, tx, companyID, period, nil)
		n = len(w)
		return err
	})
	return n, err
}

// CompanyMonth is a company's month to rate.
type CompanyMonth struct {
	CompanyID uuid.UUID
	Period    Period
}

// DueMonths lists, for every company, the month that has just ended in the
// company's time zone when that month has not been rated as a whole yet.
// Companies created after that month are left out.
func (s *Service) DueMonths(ctx context.Context) ([]CompanyMonth, error) {
	rows, err := s.db.Query(ctx, `
		SELECT c.id, m.period
		FROM companies c
		CROSS JOIN LATERAL (
			SELECT (date_trunc('month', konvoj_today(c.timezone)) - interval '1 month')::date AS period,
				date_trunc('month', konvoj_today(c.timezone))::timestamp AT TIME ZONE c.timezone AS month_start
		) m
		WHERE c.created_at < m.month_start
			AND NOT EXISTS (SELECT 1 FROM rating_runs r WHERE r.company_id = c.id AND r.rating_period = m.period)
		ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("list months due for rating: %w", err)
	}
	defer rows.Close()
	var out []CompanyMonth
	for rows.Next() {
		var cm CompanyMonth
		if err := rows.Scan(&cm.CompanyID, &cm.Period); err != nil {
			return nil, fmt.Errorf("scan month due: %w", err)
		}
		out = append(out, cm)
	}
	return out, rows.Err()
}

// HistoryFilter selects the months of a driver's history.
type HistoryFilter struct {
	From, To      string // YYYY-MM-DD; empty: 6 months ago, today
	Page, PerPage int
	// Malformed is the error of a query value the caller could not read
	// (page, per_page); it answers after the role and driver checks.
	Malformed error
}

// HistoryItem is one month of a driver's history.
type HistoryItem struct {
	RatingPeriod   Period       `json:"rating_period"`
	TotalScore     json.Number  `json:"total_score"`
	RankPercentile int          `json:"rank_percentile"`
	ScoreChange    *json.Number `json:"score_change"`
}

// HistorySummary describes the whole window (not just the page).
type HistorySummary struct {
	HighestScore  *json.Number `json:"highest_score"`
	HighestPeriod *Period      `json:"highest_period"`
	LowestScore   *json.Number `json:"lowest_score"`
	LowestPeriod  *Period      `json:"lowest_period"`
	AverageScore  *json.Number `json:"average_score"`
	Trend         string       `json:"trend"`
}

// History is a page of a driver's monthly ratings, newest first, with the
// summary of the window.
type History struct {
	Items   []HistoryItem
	Total   int
	Summary HistorySummary
}

// History lists the driver's snapshots whose month overlaps [from, to]
// (default: from 6 months before today to today, in the company's time
// zone), newest first. On equal scores the highest and lowest periods are
// the most recent ones.
func (s *Service) History(ctx context.Context, p auth.Principal, driverID uuid.UUID, f HistoryFilter) (History, error) {
	if err := p.Require(auth.RatingRead); err != nil {
		return History{}, err
	}
	if _, err := tenants.CheckDriver(ctx, s.db, p, auth.RatingRead, driverID); err != nil {
		return History{}, err
	}
	if f.Malformed != nil {
		return History{}, f.Malformed
	}
	today := civil.DateOf(s.now().In(p.Location()))
	from, err := queryDate("from", f.From, today.AddMonths(-6))
	if err != nil {
		return History{}, err
	}
	to, err := queryDate("to", f.To, today)
	if err != nil {
		return History{}, err
	}
	if from.After(to) {
		return History{}, apperr.Invalid("from", "The from date must not be after the to date.")
	}
	rows, err := s.db.Query(ctx, `
		SELECT rating_period, total_score::text, coalesce(rank_percentile, 100), (total_score - previous_score)::text
		FROM rating_snapshots
		WHERE driver_id = $1 AND rating_period BETWEEN $2 AND $3
		ORDER BY rating_period DESC`, driverID, from.MonthStart(), to)
	if err != nil {
		return History{}, fmt.Errorf("rating history of driver %s: %w", driverID, err)
	}
	defer rows.Close()
	var all []HistoryItem
	for rows.Next() {
		var it HistoryItem
		var total string
		var change *string
		if err := rows.Scan(&it.RatingPeriod, &total, &it.RankPercentile, &change); err != nil {
			return History{}, fmt.Errorf("scan rating history: %w", err)
		}
		it.TotalScore, it.ScoreChange = json.Number(total), numPtr(change)
		all = append(all, it)
	}
	if err := rows.Err(); err != nil {
		return History{}, fmt.Errorf("rating history of driver %s: %w", driverID, err)
	}
	h := History{Total: len(all), Summary: summarize(all), Items: []HistoryItem{}}
	start := (f.Page - 1) * f.PerPage
	if start < len(all) {
		h.Items = all[start:min(len(all), start+f.PerPage)]
	}
	return h, nil
}

// summarize computes the history summary; items are newest first.
func summarize(items []HistoryItem) HistorySummary {
	sum := HistorySummary{Trend: TrendInsufficientData}
	if len(items) == 0 {
		return sum
	}
	hi, lo := 0, 0
	total := decimal.Zero
	points := make([]TrendPoint, 0, len(items))
	for i, it := range items {
		d, _ := decimal.NewFromString(it.TotalScore.String())
		total = total.Add(d)
		if d.GreaterThan(score(items[hi])) {
			hi = i
		}
		if d.LessThan(score(items[lo])) {
			lo = i
		}
		f, _ := d.Float64()
		points = append(points, TrendPoint{Period: it.RatingPeriod, Score: f})
	}
	avg := json.Number(total.Div(decimal.NewFromInt(int64(len(items)))).StringFixed(2))
	hs, ls := items[hi].TotalScore, items[lo].TotalScore
	hp, lp := items[hi].RatingPeriod, items[lo].RatingPeriod
	sum.HighestScore, sum.HighestPeriod = &hs, &hp
	sum.LowestScore, sum.LowestPeriod = &ls, &lp
	sum.AverageScore = &avg
	sum.Trend = Trend(points)
	return sum
}

func score(it HistoryItem) decimal.Decimal {
	d, _ := decimal.NewFromString(it.TotalScore.String())
	return d
}

// RankingFilter selects and orders the company ranking.
type RankingFilter struct {
	Period        string // YYYY-MM; empty: the current month
	SortBy        string // total_score (default), rank_percentile, internal_number, last_name
	SortOrder     string // asc, desc; default desc for scores, asc for the others
	Page, PerPage int
}

// RankingRow is one driver in the company ranking.
type RankingRow struct {
	DriverID       uuid.UUID    `json:"driver_id"`
	InternalNumber string       `json:"internal_number"`
	FirstName      string       `json:"first_name"`
	LastName       string       `json:"last_name"`
	RatingPeriod   Period       `json:"rating_period"`
	TotalScore     json.Number  `json:"total_score"`
	RankPercentile int          `json:"rank_percentile"`
	PreviousScore  *json.Number `json:"previous_score"`
	ScoreChange    *json.Number `json:"score_change"`
	CalculatedAt   time.Time    `json:"calculated_at"`
}

// rankingOrders maps sort_by to its ORDER BY column (never pasted from
// input); internal_seq and id break ties.
var rankingOrders = map[string]string{
	"total_score":     "s.total_score",
	"rank_percentile": "s.rank_percentile",
	"internal_number": "d.internal_seq",
	"last_name":       "d.last_name",
}

// Ranking lists the company's stored snapshots of a month (default: the
// current month; it holds the drivers whose current rating has been read or
// recalculated). A driver caller sees only its own row.
func (s *Service) Ranking(ctx context.Context, p auth.Principal, f RankingFilter) ([]RankingRow, int, error) {
	if err := p.Require(auth.RatingRead); err != nil {
		return nil, 0, err
	}
	month, err := queryPeriod(f.Period, s.currentPeriod(p))
	if err != nil {
		return nil, 0, err
	}
	var v apperr.Validation
	if f.SortBy == "" {
		f.SortBy = "total_score"
	}
	col, ok := rankingOrders[f.SortBy]
	if !ok {
		v.Add("sort_by", "The sort_by must be one of: total_score, rank_percentile, internal_number, last_name.")
	}
	if f.SortOrder == "" {
		f.SortOrder = "asc"
		if f.SortBy == "total_score" || f.SortBy == "rank_percentile" {
			f.SortOrder = "desc"
		}
	}
	if f.SortOrder != "asc" && f.SortOrder != "desc" {
		v.Add("sort_order", "The sort_order must be asc or desc.")
	}
	if month.After(s.currentPeriod(p)) {
		v.Add("period", "The period may not be a future month.")
	}
	if err := v.Err(); err != nil {
		return nil, 0, err
	}
	var own *uuid.UUID
	if p.OwnDriverOnly(auth.RatingRead) {
		own = &uuid.Nil // a driver caller without a linked driver sees nothing
		if p.DriverID != nil {
			own = p.DriverID
		}
	}
	rows, err := s.db.Query(ctx, `
		SELECT s.driver_id, d.internal_number, d.first_name, d.last_name, s.rating_period, s.total_score::text,
			coalesce(s.rank_percentile, 100), s.previous_score::text, (s.total_score - s.previous_score)::text,
			s.calculated_at, count(*) OVER ()
		FROM rating_snapshots s JOIN drivers d ON d.id = s.driver_id AND d.deleted_at IS NULL
		WHERE s.company_id = $1 AND s.rating_period = $2 AND ($3::uuid IS NULL OR s.driver_id = $3)
		ORDER BY `+col+` `+f.SortOrder+`, d.internal_seq, s.id
		LIMIT $4 OFFSET $5`,
		p.CompanyID, month.First(), own, f.PerPage, (f.Page-1)*f.PerPage)
	if err != nil {
		return nil, 0, fmt.Errorf("rating ranking %s: %w", month, err)
	}
	defer rows.Close()
	out := []RankingRow{}
	total := 0
	for rows.Next() {
		var r RankingRow
		var score string
		var prev, change *string
		if err := rows.Scan(&r.DriverID, &r.InternalNumber, &r.FirstName, &r.LastName, &r.RatingPeriod, &score,
			&r.RankPercentile, &prev, &change, &r.CalculatedAt, &total); err != nil {
			return nil, 0, fmt.Errorf("scan ranking: %w", err)
		}
		r.TotalScore, r.PreviousScore, r.ScoreChange = json.Number(score), numPtr(prev), numPtr(change)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("rating ranking %s: %w", month, err)
	}
	if len(out) == 0 && f.Page > 1 {
		// count(*) OVER () is unknown past the last page; count separately.
		err := s.db.QueryRow(ctx, `
			SELECT count(*) FROM rating_snapshots s JOIN drivers d ON d.id = s.driver_id AND d.deleted_at IS NULL
			WHERE s.company_id = $1 AND s.rating_period = $2 AND ($3::uuid IS NULL OR s.driver_id = $3)`,
			p.CompanyID, month.First(), own).Scan(&total)
		if err != nil {
			return nil, 0, fmt.Errorf("count ranking %s: %w", month, err)
		}
	}
	return out, total, nil
}

// ConfigView is a company's rating configuration as the API shows it.
type ConfigView struct {
	CompanyID   uuid.UUID      `json:"company_id"`
	Metrics     []MetricConfig `json:"metrics"`
	TotalWeight json.Number    `json:"total_weight"`
}

// Config returns the company's configuration (every role that may read
// ratings; another company is 403 AccessDenied).
func (s *Service) Config(ctx context.Context, p auth.Principal, companyID uuid.UUID) (ConfigView, error) {
	if err := p.Require(auth.RatingRead); err != nil {
		return ConfigView{}, err
	}
	if err := s.checkCompany(ctx, p, companyID); err != nil {
		return ConfigView{}, err
	}
	cfg, err := loadConfig(ctx, s.db, companyID, false)
	if err != nil {
		return ConfigView{}, err
	}
	return ConfigView{CompanyID: companyID, Metrics: cfg.Metrics, TotalWeight: num(cfg.TotalWeight())}, nil
}

// checkCompany gives 404 for a company that does not exist and 403
// AccessDenied for another company (docs/errors.md: the record's existence is
// checked before its company).
func (s *Service) checkCompany(ctx context.Context, p auth.Principal, companyID uuid.UUID) error {
	if companyID == p.CompanyID {
		return nil
	}
	var exists bool
	if err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1)`, companyID).Scan(&exists); err != nil {
		return fmt.Errorf("find company %s: %w", companyID, err)
	}
	if !exists {
		return apperr.NotFound("Company")
	}
	return p.CheckCompany(companyID)
}

// ConfigUpdated is the answer of a configuration update.
type ConfigUpdated struct {
	Message        string `json:"message"`
	UpdatedMetrics int    `json:"updated_metrics"`
	TotalWeight    int    `json:"total_weight"`
}

// UpdateConfig merges a partial update into the company's configuration,
// validates the result (422 with field messages) and stores it with one
// audit row per changed metric (admin, HR). Snapshots already stored keep
// the configuration they were computed with. bodyErr is the request body's
// decoding error, reported only after the permission checks (docs/errors.md).
func (s *Service) UpdateConfig(ctx context.Context, p auth.Principal, companyID uuid.UUID, u ConfigUpdate, bodyErr error) (ConfigUpdated, error) {
	if err := p.Require(auth.RatingManage); err != nil {
		return ConfigUpdated{}, err
	}
	if err := s.checkCompany(ctx, p, companyID); err != nil {
		return ConfigUpdated{}, err
	}
	if bodyErr != nil {
		return ConfigUpdated{}, bodyErr
	}
	var merged Config
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		before, err := loadConfig(ctx, tx, companyID, true)
		if err != nil {
			return err
		}
		if merged, err = before.Merge(u); err != nil {
			return err
		}
		for i, m := range merged.Metrics {
			old, now := auditValues(before.Metrics[i]), auditValues(m)
			oldV, newV := audit.Diff(old, now)
			if len(newV) == 0 {
				continue
			}
			th := map[string]json.Number{}
			for k, v := range m.Thresholds {
				th[k] = num(v)
			}
			var id uuid.UUID
			err := tx.QueryRow(ctx, `
				INSERT INTO rating_configs (company_id, metric_name, weight, is_enabled, thresholds)
				VALUES ($1, $2, $3::numeric, $4, $5)
				ON CONFLICT (company_id, metric_name) DO UPDATE
					SET weight = EXCLUDED.weight, is_enabled = EXCLUDED.is_enabled, thresholds = EXCLUDED.thresholds
				RETURNING id`,
				companyID, m.MetricName, m.Weight.String(), m.IsEnabled, th).Scan(&id)
			if err != nil {
				return fmt.Errorf("store rating config %s of company %s: %w", m.MetricName, companyID, err)
			}
			oldV["metric_name"], newV["metric_name"] = m.MetricName, m.MetricName
			if err := audit.Record(ctx, tx, p, audit.Entry{
				EntityType: "rating_config", EntityID: id, Action: "updated", OldValues: oldV, NewValues: newV,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ConfigUpdated{}, err
	}
	return ConfigUpdated{
		Message:        "Rating configuration updated.",
		UpdatedMetrics: len(u.Metrics),
		TotalWeight:    int(math.Round(merged.TotalWeight().InexactFloat64())),
	}, nil
}

func auditValues(m MetricConfig) map[string]any {
	th := map[string]any{}
	for k, v := range m.Thresholds {
		th[k] = num(v)
	}
	return map[string]any{"weight": num(m.Weight), "is_enabled": m.IsEnabled, "thresholds": th}
}
