package units

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// Flush turns the company's queued changes of readiness (written by the
// triggers of migrations/00053_transport_unit_readiness.sql in this
// transaction, or left by a writer that did not flush) into the event
// transport_unit.readiness_changed and the in-app notifications of the
// company's dispatchers and admins, on tx: a rolled-back change tells
// nobody, a committed one is told once (the queue's rows are deleted as
// they are read). A unit whose readiness changed back within the queue,
// or that has ended since, tells nothing. The services that write what
// readiness reads call it before they commit.
func Flush(ctx context.Context, tx pgx.Tx, companyID uuid.UUID) error {
	rows, err := tx.Query(ctx, `DELETE FROM transport_unit_changes WHERE company_id = $1 RETURNING id, unit_id, previous_is_ready`, companyID)
	if err != nil {
		return fmt.Errorf("take readiness changes: %w", err)
	}
	type change struct {
		seq      int64
		unit     uuid.UUID
		previous bool
	}
	changes, err := postgres.AppendRows(nil, rows, func(row pgx.Row, c *change) error {
		return row.Scan(&c.seq, &c.unit, &c.previous)
	})
	if err != nil || len(changes) == 0 {
		return err
	}
	// The first queued change of a unit holds its readiness before this
	// transaction (or the last flush).
	first := map[uuid.UUID]change{}
	var ids []uuid.UUID
	for _, c := range changes {
		if f, ok := first[c.unit]; !ok || c.seq < f.seq {
			if !ok {
				ids = append(ids, c.unit)
			}
			first[c.unit] = c
		}
	}
	list, err := unitsByID(ctx, tx, companyID, ids)
	if err != nil {
		return err
	}
	var unitIDs, driverIDs []uuid.UUID
	var stages []string
	for _, u := range list {
		prev := first[u.ID].previous
		if !u.Active() || u.IsReady == prev {
			continue
		}
		if err := webhooks.Emit(ctx, tx, companyID, webhooks.UnitReadinessChanged, about(u, ReadinessChange{Unit: u, PreviousIsReady: prev})); err != nil {
			return err
		}
		stage := StageNotReady
		if u.IsReady {
			stage = StageReady
		}
		unitIDs, driverIDs, stages = append(unitIDs, u.ID), append(driverIDs, u.Driver.ID), append(stages, stage)
	}
	if len(unitIDs) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO notifications (company_id, user_id, kind, stage, driver_id, unit_id)
		SELECT $1, us.id, $2, x.stage, x.driver, x.unit
		FROM unnest($3::uuid[], $4::uuid[], $5::text[]) AS x(unit, driver, stage)
		CROSS JOIN users us
		WHERE us.company_id = $1 AND us.is_active AND us.role IN ('admin', 'dispatcher')`,
		companyID, KindUnit, unitIDs, driverIDs, stages); err != nil {
		return fmt.Errorf("write transport unit notifications: %w", err)
	}
	return nil
}

// Day is a company whose day start is due: its units' readiness is to be
// worked out again for its local day.
type Day struct {
	CompanyID uuid.UUID
	Date      civil.Date
}

// DueDays returns, at now, the companies with active units whose current
// local day has started and has not been started for them yet, or that
// have queued changes of readiness nobody flushed (a bulk write: their
// day is then the current one too, and StartDay flushes them). Asked with
// the daily scans (internal/jobs), it starts each company's day within
// minutes of its local midnight and catches up after downtime.
func DueDays(ctx context.Context, db *pgxpool.Pool, now time.Time) ([]Day, error) {
	rows, err := db.Query(ctx, `
		SELECT c.id, ($1::timestamptz AT TIME ZONE c.timezone)::date
		FROM companies c
		WHERE (EXISTS (SELECT FROM transport_units u WHERE u.company_id = c.id AND u.unassigned_at IS NULL AND u.deleted_at IS NULL)
				AND NOT EXISTS (SELECT FROM transport_unit_days x WHERE x.company_id = c.id
					AND x.day >= ($1::timestamptz AT TIME ZONE c.timezone)::date))
			OR EXISTS (SELECT FROM transport_unit_changes q WHERE q.company_id = c.id AND q.created_at < $1::timestamptz - interval '1 minute')
		ORDER BY c.id`, now)
	if err != nil {
		return nil, fmt.Errorf("due unit days: %w", err)
	}
	return postgres.AppendRows(nil, rows, func(row pgx.Row, d *Day) error { return row.Scan(&d.CompanyID, &d.Date) })
}

// StartDay works out the readiness of every active unit of the company
// for its local day date, once per day (a second start of the same day
// recomputes nothing), and flushes the changes: the units that stop being
// ready at midnight emit their event and notifications, in one
// transaction. It returns how many units' stored readiness changed.
func StartDay(ctx context.Context, db *pgxpool.Pool, companyID uuid.UUID, date civil.Date) (int, error) {
	n := 0
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO transport_unit_days AS x (company_id, day) VALUES ($1, $2)
			ON CONFLICT (company_id) DO UPDATE SET day = EXCLUDED.day WHERE x.day < EXCLUDED.day`, companyID, date)
		if err != nil {
			return fmt.Errorf("claim the unit day of %s: %w", companyID, err)
		}
		if tag.RowsAffected() > 0 {
			if err := tx.QueryRow(ctx, `SELECT konvoj_refresh_units($1, NULL, $2)`, companyID, date).Scan(&n); err != nil {
				return fmt.Errorf("refresh the units of %s: %w", companyID, err)
			}
		}
		return Flush(ctx, tx, companyID)
	})
	return n, err
}

// RefreshCompany works out the readiness of every active unit of the
// company as of its today and flushes the changes, in one transaction
// (the seeds, after loading units in bulk). It returns how many units'
// stored readiness changed.
func RefreshCompany(ctx context.Context, db *pgxpool.Pool, companyID uuid.UUID) (int, error) {
	n := 0
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT konvoj_refresh_units($1, NULL)`, companyID).Scan(&n); err != nil {
			return fmt.Errorf("refresh the units of %s: %w", companyID, err)
		}
		return Flush(ctx, tx, companyID)
	})
	return n, err
}
