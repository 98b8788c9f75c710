// Package ratingtest inserts the data the rating reads (documents and files,
// penalties with their finance records, orders) straight into the database,
// for the rating tests and benchmark; the areas that own those tables have
// their own services. Companies and drivers come from package fixtures.
package ratingtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Fixtures inserts rows for one company.
type Fixtures struct {
	T       testing.TB
	DB      *pgxpool.Pool
	Company uuid.UUID
}

// New creates a company (Europe/Prague, CZK) on db.
func New(t testing.TB, db *pgxpool.Pool) *Fixtures {
	t.Helper()
	c := fixtures.Company(t, db, fixtures.CompanyName("Rating Test "+uuid.NewString()[:6]))
	return &Fixtures{T: t, DB: db, Company: c}
}

func (f *Fixtures) exec(sql string, args ...any) {
	f.T.Helper()
	if _, err := f.DB.Exec(context.Background(), sql, args...); err != nil {
		f.T.Fatalf("ratingtest: %v\n%s", err, sql)
	}
}

// ActiveDrivers lists the company's active drivers in their internal order
// (the drivers a benchmark or a test reads in turn).
func (f *Fixtures) ActiveDrivers() []uuid.UUID {
	f.T.Helper()
	rows, err := f.DB.Query(context.Background(), `SELECT id FROM drivers WHERE company_id = $1 AND status = 'active' ORDER BY internal_seq`, f.Company)
	if err != nil {
		f.T.Fatalf("ratingtest: active drivers: %v", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		f.T.Fatalf("ratingtest: active drivers: %v", err)
	}
	return ids
}

// Driver inserts an active driver of the company with its 14 empty
// documents (fixtures.Driver).
func (f *Fixtures) Driver(opts ...fixtures.DriverOption) uuid.UUID {
	f.T.Helper()
	return fixtures.Driver(f.T, f.DB, f.Company, opts...)
}

// Document gives the driver's document of the type a current file uploaded
// at uploadedAt and the valid_until ("" for none).
func (f *Fixtures) Document(driver uuid.UUID, typ, validUntil string, uploadedAt time.Time) {
	f.T.Helper()
	f.Upload(driver, typ, validUntil, uploadedAt)
}

// Upload adds a new current file version to the driver's document, uploaded
// at uploadedAt, and sets valid_until in the same transaction (as the upload
// endpoint does); validUntil "" leaves it unchanged.
func (f *Fixtures) Upload(driver uuid.UUID, typ, validUntil string, uploadedAt time.Time) {
	f.T.Helper()
	err := postgres.InTx(context.Background(), f.DB, func(tx pgx.Tx) error {
		ctx := context.Background()
		var docID uuid.UUID
		var version int
		if err := tx.QueryRow(ctx, `
			SELECT d.id, coalesce((SELECT max(version) FROM document_files WHERE document_id = d.id), 0) + 1
			FROM driver_documents d WHERE d.driver_id = $1 AND d.type = $2`, driver, typ).Scan(&docID, &version); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE document_files SET is_current = false WHERE document_id = $1 AND is_current`, docID); err != nil {
			return err
		}
		var fileID uuid.UUID
		if err := tx.QueryRow(ctx, `
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				storage_path, storage_disk, hash_sha256, uploaded_at)
			VALUES ($1, $2, $3, 'scan.pdf', 'application/pdf', 1234, $4, $5, 'local', repeat('a', 64), $6)
			RETURNING id`,
			f.Company, docID, fmt.Sprintf("v%d_%s.pdf", version, uuid.NewString()), version,
			fmt.Sprintf("%s/%s/%s/v%d.pdf", f.Company, driver, typ, version), uploadedAt).Scan(&fileID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE driver_documents SET current_file_id = $2,
				valid_until = CASE WHEN $3 = '' THEN valid_until ELSE $3::date END
			WHERE id = $1`, docID, fileID, validUntil); err != nil {
			return err
		}
		// The change log's clock must agree with the back-dated upload.
		_, err := tx.Exec(ctx, `UPDATE document_validity_changes SET changed_at = $1 WHERE xact = pg_current_xact_id()`, uploadedAt)
		return err
	})
	if err != nil {
		f.T.Fatalf("ratingtest: upload %s of driver %s: %v", typ, driver, err)
	}
}

// SetValidUntil changes a document's valid_until on its own at the time
// (a later metadata update).
func (f *Fixtures) SetValidUntil(driver uuid.UUID, typ, validUntil string, at time.Time) {
	f.T.Helper()
	err := postgres.InTx(context.Background(), f.DB, func(tx pgx.Tx) error {
		ctx := context.Background()
		if _, err := tx.Exec(ctx, `UPDATE driver_documents SET valid_until = $3::date WHERE driver_id = $1 AND type = $2`,
			driver, typ, validUntil); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE document_validity_changes SET changed_at = $1 WHERE xact = pg_current_xact_id()`, at)
		return err
	})
	if err != nil {
		f.T.Fatalf("ratingtest: set valid_until: %v", err)
	}
}

// Penalty inserts a penalty with its finance record.
func (f *Fixtures) Penalty(driver uuid.UUID, incident, amount, status string, deleted bool) {
	f.T.Helper()
	f.exec(`
		WITH ft AS (
			INSERT INTO finance_transactions (company_id, driver_id, transaction_type, category, amount, status, transaction_date)
			VALUES ($1, $2, 'penalty', 'penalty', -($4::numeric), CASE WHEN $5 = 'cancelled' THEN 'cancelled' ELSE 'pending' END, $3::date)
			RETURNING id)
		INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, amount, incident_date, description, status, deleted_at)
		SELECT $1, $2, ft.id, 'speeding', $4::numeric, $3::date, 'Speeding', $5, CASE WHEN $6 THEN now() END FROM ft`,
		f.Company, driver, incident, amount, status, deleted)
}

// Orders inserts n orders of the driver on the date.
func (f *Fixtures) Orders(driver uuid.UUID, date, status string, n int, deleted bool) {
	f.T.Helper()
	f.exec(`
		INSERT INTO orders (company_id, driver_id, order_date, status, deleted_at)
		SELECT $1, $2, $3::date, $4, CASE WHEN $5 THEN now() END FROM generate_series(1, $6)`,
		f.Company, driver, date, status, deleted, n)
}

// Exec runs any statement (for odd fixtures).
func (f *Fixtures) Exec(sql string, args ...any) { f.T.Helper(); f.exec(sql, args...) }
