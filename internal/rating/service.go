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

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// Service rates drivers and serves ratings, history, ranking and the
// configuration.
type Service struct {
	db  *pgxpool.Pool
	now func() time.Time
}

// NewService returns a rating service.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db, now: time.Now} }

// currentPeriod is the company's current month.
func (s *Service) currentPeriod(p auth.Principal) Period { return CurrentPeriod(p.Location(), s.now()) }

func (s *Service) checkNotFuture(p auth.Principal, period Period) error {
	if period.After(s.currentPeriod(p)) {
		return apperr.Invalid("period", "msg.rating_read.period_future")
	}
	return nil
}

// get returns driver d's rating for the month (nil: the current month),
// without writing anything or taking any lock (docs/rating.md). The current
// month is computed from current data at read time and ranked among the
// month's stored snapshots of the other drivers; a past month is its stored
// snapshot (written by the monthly job or a recalculation), or, without
// one, computed the same way as the current month. d is loaded for the
// caller (loadDriver).
func (s *Service) get(ctx context.Context, p auth.Principal, d ratedDriver, period *Period) (Rating, error) {
	month, past, err := s.readMonth(p, period)
	if err != nil {
		return Rating{}, err
	}
	if past {
		r, err := readRating(ctx, s.db, d.CompanyID, d.ID, month)
		if !errors.Is(err, apperr.ErrNotFound) {
			return r, err
		}
	}
	return liveRating(ctx, s.db, d.CompanyID, d.ID, month, s.now())
}

// Read returns the rating of driver driverID for the month (nil: the
// current month), as get does, for the caller. badPeriod, when not nil, is
// the period's parse error, answered after the access checks (403 and 404
// before 400), as is a future month. The month's first reads go to
// PostgreSQL with the driver's lookup (loadDriverWith): for a past month
// the stored snapshot, the whole answer in one round trip; for the current
// month the live rating's first reads, and its percentile in a second
// round trip.
func (s *Service) Read(ctx context.Context, p auth.Principal, driverID uuid.UUID, period *Period, badPeriod error) (Rating, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	month, past, monthErr := s.readMonth(p, period)
	if badPeriod != nil {
		monthErr = badPeriod
	}
	var stored Rating
	var live liveReads
	found := false
	driver, err := loadDriverWith(ctx, s.db, p, driverID, func(b *pgx.Batch) {
		switch {
		case monthErr != nil:
		case past:
			queueStoredRating(b, p.CompanyID, driverID, month, &stored, &found)
		default:
			queueLive(b, p.CompanyID, driverID, month, &live)
		}
	})
	switch {
	case err != nil:
		return Rating{}, err
	case monthErr != nil:
		return Rating{}, monthErr
	case !past:
		return live.rating(ctx, s.db, driver.CompanyID, driver.ID, month, s.now())
	case found:
		return stored, nil
	}
	return liveRating(ctx, s.db, driver.CompanyID, driver.ID, month, s.now()) // a past month never stored
}

// SheetRequest is what a driver's rating page asks for.
type SheetRequest struct {
	// Month is the month shown.
	Month Period
	// From and To are the history's window, Months its number of months.
	From, To civil.Date
	Months   int
	// Inputs asks for what the month's rating is computed from too.
	Inputs bool
}

// Sheet is what a driver's rating page shows.
type Sheet struct {
	Rating  Rating
	History History
	// Inputs are set when the request asked for them.
	Inputs Inputs
}

// Sheet returns driver driverID's rating of a month, its history and, when
// asked, the month's inputs (what the driver's page names to raise the
// score). read fills the request once the driver is found the caller's
// (403 and 404 before a bad month's 400).
func (s *Service) Sheet(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*SheetRequest) error) (Sheet, error) {
	d, err := loadDriver(ctx, s.db, p, auth.RatingRead, driverID)
	if err != nil {
		return Sheet{}, err
	}
	var req SheetRequest
	if err := read(&req); err != nil {
		return Sheet{}, err
	}
	var out Sheet
	if out.Rating, err = s.get(ctx, p, d, &req.Month); err != nil {
		return Sheet{}, err
	}
	if out.History, err = s.history(ctx, p, d, HistoryFilter{From: &req.From, To: &req.To, Page: paging.Request{Number: 1, Size: req.Months}}); err != nil {
		return Sheet{}, err
	}
	if req.Inputs {
		if out.Inputs, err = s.inputs(ctx, p, d, &req.Month); err != nil {
			return Sheet{}, err
		}
	}
	return out, nil
}

// readMonth is the month a read asks for (nil: the current month) and
// whether it is a past one; a future month is an error.
func (s *Service) readMonth(p auth.Principal, period *Period) (month Period, past bool, err error) {
	current := s.currentPeriod(p)
	month = current
	if period != nil {
		month = *period
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return month, false, err
	}
	return month, month != current, nil
}

// Recalculate recomputes driver driverID's snapshot for the month and
// refreshes the month's percentiles (admin, HR). read fills the input once
// the driver is found the caller's (403 and 404 before 400).
func (s *Service) Recalculate(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*RecalculateInput) error) (Recalculated, error) {
	driver, err := loadDriver(ctx, s.db, p, auth.RatingManage, driverID)
	if err != nil {
		return Recalculated{}, err
	}
	var in RecalculateInput
	if err := read(&in); err != nil {
		return Recalculated{}, err
	}
	month, err := in.month(s.currentPeriod(p))
	if err != nil {
		return Recalculated{}, err
	}
	if err := s.checkNotFuture(p, month); err != nil {
		return Recalculated{}, err
	}
	var w written
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		w, err = rateDriverTx(ctx, tx, driver.CompanyID, month, driver.ID)
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
// first recalculation on. Only the first rating of a month pays for the
// rest of the company.
func rateDriverTx(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, driverID uuid.UUID) (written, error) {
	// Under the month's lock, so concurrent first recalculations of a month
	// rate the rest of the company once, not once each.
	if err := lockMonth(ctx, tx, companyID, period); err != nil {
		return written{}, err
	}
	ids, err := unratedDrivers(ctx, tx, companyID, period, driverID)
	if err != nil {
		return written{}, err
	}
	w, err := rateTx(ctx, tx, companyID, period, append(ids, driverID), false)
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
		w, err := rateTx(ctx, tx, companyID, period, nil, true)
		if err != nil {
			return err
		}
		n = len(w)
		return webhooks.Emit(ctx, tx, companyID, webhooks.RatingMonthCompleted, MonthCompleted{Period: period.String(), DriversRated: n})
	})
	return n, err
}

// MonthCompleted is the data of a rating.month_completed webhook event
// (docs/webhooks.md): the month rated and how many drivers it rated; the
// snapshots are read with the rating endpoints.
type MonthCompleted struct {
	Period       string `json:"rating_period"`
	DriversRated int    `json:"drivers_rated"`
}

// DueMonths lists, for every company, the month that has just ended in the
// company's time zone when that month has not been rated as a whole yet.
// Companies created after that month are left out.
func (s *Service) DueMonths(ctx context.Context) ([]CompanyMonth, error) {
	return dueMonths(ctx, s.db)
}

// RefreshCurrentMonth rewrites the company's stored snapshots of its
// current month (in its time zone) from current data, like a company run
// but without marking the month rated (it is not over), and refreshes the
// month's percentiles. The background refresh's work; it takes no
// principal. It returns the month and the number of drivers rated.
func (s *Service) RefreshCurrentMonth(ctx context.Context, companyID uuid.UUID) (Period, int, error) {
	var period Period
	var n int
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if period, err = currentMonthOf(ctx, tx, companyID); err != nil {
			return err
		}
		w, err := rateTx(ctx, tx, companyID, period, nil, false)
		n = len(w)
		return err
	})
	return period, n, err
}

// ClaimRefreshes takes, on tx, the companies whose refresh is due (a change
// marked them at least the debounce delay ago, or MarkAllForRefresh did):
// the marks are deleted with tx, so the caller enqueues the refreshes in
// the same transaction.
func (s *Service) ClaimRefreshes(ctx context.Context, tx pgx.Tx) ([]uuid.UUID, error) {
	return claimRefreshes(ctx, tx)
}

// MarkAllForRefresh marks every company with an active driver for a
// refresh now (the hourly refresh).
func (s *Service) MarkAllForRefresh(ctx context.Context) (int, error) {
	return markAllForRefresh(ctx, s.db)
}

// History lists driver driverID's snapshots whose month overlaps [from,
// to] (default: from 6 months before today to today, in the company's time
// zone), newest first. On equal scores the highest and lowest periods are
// the most recent ones. read fills the filter once the driver is found the
// caller's (403 and 404 before 400).
func (s *Service) History(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*HistoryFilter) error) (History, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	d, err := loadDriver(ctx, s.db, p, auth.RatingRead, driverID)
	if err != nil {
		return History{}, err
	}
	var f HistoryFilter
	if err := read(&f); err != nil {
		return History{}, err
	}
	return s.history(ctx, p, d, f)
}

// history is History of driver d, loaded for the caller.
func (s *Service) history(ctx context.Context, p auth.Principal, d ratedDriver, f HistoryFilter) (History, error) {
	today := civil.DateOf(s.now().In(p.Location()))
	from, to := today.AddMonths(-6), today
	if f.From != nil {
		from = *f.From
	}
	if f.To != nil {
		to = *f.To
	}
	if from.After(to) {
		return History{}, apperr.Invalid("from", "msg.rating_read.from_after_to")
	}
	all, err := historyRows(ctx, s.db, d.CompanyID, d.ID, from, to)
	if err != nil {
		return History{}, err
	}
	h := History{Page: paging.New[HistoryItem](nil, len(all), f.Page), Summary: summarize(all)}
	if start := f.Page.Offset(); start < len(all) {
		h.Items = all[start:min(len(all), start+f.Page.Size)]
	}
	return h, nil
}

// Ranking lists the company's stored snapshots of a month (default: the
// current month, as the background refresh or a recalculation last stored
// it). A driver caller sees only its own row. read fills the filter after
// the role check (403 before 400).
func (s *Service) Ranking(ctx context.Context, p auth.Principal, read func(*RankingFilter) error) (paging.Page[RankingRow], error) {
	only, err := rankingOf(p)
	if err != nil {
		return paging.Page[RankingRow]{}, err
	}
	var f RankingFilter
	if err := read(&f); err != nil {
		return paging.Page[RankingRow]{}, err
	}
	current := s.currentPeriod(p)
	month := current
	if f.Period != nil {
		month = *f.Period
	}
	r, err := f.check(month, current)
	if err != nil {
		return paging.Page[RankingRow]{}, err
	}
	r.own = only
	out, total, err := rankingRows(ctx, s.db, p.CompanyID, r)
	if err != nil {
		return paging.Page[RankingRow]{}, err
	}
	if len(out) == 0 && f.Page.Number > 1 {
		// count(*) OVER () is unknown past the last page; count separately.
		if total, err = countRanking(ctx, s.db, p.CompanyID, r); err != nil {
			return paging.Page[RankingRow]{}, err
		}
	}
	return paging.New(out, total, f.Page), nil
}

// Config returns company companyID's configuration (every role that may
// read ratings; another company is 403 AccessDenied).
func (s *Service) Config(ctx context.Context, p auth.Principal, companyID uuid.UUID) (ConfigView, error) {
	cfg, err := loadConfigFor(ctx, s.db, p, auth.RatingRead, companyID)
	if err != nil {
		return ConfigView{}, err
	}
	return ConfigView{CompanyID: companyID, Metrics: cfg.Metrics, TotalWeight: num(cfg.TotalWeight())}, nil
}

// EditConfig returns company companyID's configuration for its editor:
// only the roles that may change it (auth.RatingManage) open it.
func (s *Service) EditConfig(ctx context.Context, p auth.Principal, companyID uuid.UUID) (ConfigView, error) {
	cfg, err := loadConfigFor(ctx, s.db, p, auth.RatingManage, companyID)
	if err != nil {
		return ConfigView{}, err
	}
	return ConfigView{CompanyID: companyID, Metrics: cfg.Metrics, TotalWeight: num(cfg.TotalWeight())}, nil
}

// UpdateConfig merges a partial update into the company's configuration,
// validates the result (422 with field messages) and stores it with one
// audit row per changed metric (admin, HR). Snapshots already stored keep
// the configuration they were computed with. read fills the update once
// the company is found the caller's (403 and 404 before 400).
func (s *Service) UpdateConfig(ctx context.Context, p auth.Principal, companyID uuid.UUID, read func(*ConfigUpdate) error) (ConfigUpdated, error) {
	if err := configOf(ctx, s.db, p, auth.RatingManage, companyID); err != nil {
		return ConfigUpdated{}, err
	}
	var u ConfigUpdate
	if err := read(&u); err != nil {
		return ConfigUpdated{}, err
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
		return storeConfig(ctx, tx, p, companyID, before, merged)
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

// storeConfig writes the metrics that differ between before and merged,
// with an audit row each.
func storeConfig(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID uuid.UUID, before, merged Config) error {
	for i, m := range merged.Metrics {
		oldV, newV := audit.Diff(auditValues(before.Metrics[i]), auditValues(m))
		if len(newV) == 0 {
			continue
		}
		id, err := storeMetric(ctx, tx, companyID, m)
		if err != nil {
			return err
		}
		oldV["metric_name"], newV["metric_name"] = m.MetricName, m.MetricName
		if err := audit.Record(ctx, tx, p, audit.Entry{
			EntityType: "rating_config", EntityID: id, Action: "updated", OldValues: oldV, NewValues: newV,
		}); err != nil {
			return err
		}
	}
	return nil
}
