package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Due is a company whose scan of its local day is due.
type Due struct {
	CompanyID uuid.UUID
	Date      civil.Date
}

// DueScans returns the companies for which, at now, it is ScanHour or
// later in their time zone (or, for a company never scanned, any hour once
// it has an active driver) and today's scan has not run. Asked every few
// minutes and at start, it runs each company's scan shortly after 07:00
// local, catches up once after downtime (the scan records every stage
// reached since the last run), and follows a change of time zone: the day
// is always the company's current local day, and a day already scanned is
// never scanned again.
func DueScans(ctx context.Context, db *pgxpool.Pool, now time.Time) ([]Due, error) {
	rows, err := db.Query(ctx, `
		SELECT c.id, ($1::timestamptz AT TIME ZONE c.timezone)::date
		FROM companies c
		WHERE (extract(hour FROM $1::timestamptz AT TIME ZONE c.timezone) >= $2
				-- A company never scanned is due at any hour once it has
				-- drivers: a new company does not wait for the morning.
				OR (NOT EXISTS (SELECT FROM alert_runs r WHERE r.company_id = c.id)
					AND EXISTS (SELECT FROM drivers d WHERE d.company_id = c.id AND d.deleted_at IS NULL AND d.status = 'active')))
			AND NOT EXISTS (SELECT FROM alert_runs r
				WHERE r.company_id = c.id AND r.run_date = ($1::timestamptz AT TIME ZONE c.timezone)::date)
		ORDER BY c.id`, now, ScanHour)
	if err != nil {
		return nil, fmt.Errorf("due alert scans: %w", err)
	}
	due, err := postgres.AppendRows(nil, rows, func(row pgx.Row, d *Due) error {
		return row.Scan(&d.CompanyID, &d.Date)
	})
	if err != nil {
		return nil, fmt.Errorf("due alert scans: %w", err)
	}
	return due, nil
}
