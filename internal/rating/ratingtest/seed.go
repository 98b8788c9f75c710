package ratingtest

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
)

// SeedYear fills the company with a year of data from the month starting
// at first, for the given number of drivers (the rating benchmarks' data):
// 14 documents each, 3 file versions a year for the 5 required ones plus 2
// others (every later version a renewal, some late), 6 penalties a year
// (every 6th cancelled), 10 orders a month; every 50th driver on leave.
// Bulk statements, without triggers; it ends with ANALYZE.
func (f *Fixtures) SeedYear(drivers int, first civil.Date) {
	f.T.Helper()
	ctx := context.Background()
	// Bulk load without per-row foreign key and trigger work (the test
	// server's superuser may); the rows are consistent by construction.
	bulk := func(sql string, args ...any) {
		f.T.Helper()
		err := postgres.InTx(ctx, f.DB, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, sql, args...)
			return err
		})
		if err != nil {
			f.T.Fatalf("bench data: %v", err)
		}
	}
	bulk(`
		INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, phone, birth_date, hire_date, status)
		SELECT $1, 'DRV-' || lpad(g::text, 4, '0'), g, 'Jan', 'Novák ' || g, 'driver' || g || '@example.test',
			CASE WHEN g % 3 = 0 THEN '+420 600 000 000' END, date '1980-01-01' + g, date '2020-01-01' + g % 900,
			CASE WHEN g % 50 = 0 THEN 'on_leave' ELSE 'active' END
		FROM generate_series(1, $2::int) g`, f.Company, drivers)
	bulk(`UPDATE companies SET driver_number_seq = $2 WHERE id = $1`, f.Company, drivers)
	bulk(`INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT $1, d.id, t FROM drivers d CROSS JOIN unnest($2::text[]) t WHERE d.company_id = $1`, f.Company, documents.Types)
	// Files: versions 1–3 on the 10th of the first month, 4 and 8 months
	// later, 09:00 Prague summer time (+ a spread of days).
	bulk(`
		INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
			is_current, storage_path, storage_disk, hash_sha256, uploaded_at)
		SELECT $1, dd.id, 'v' || v || '_' || dd.id || '.pdf', 'scan.pdf', 'application/pdf', 100000, v, v = 3,
			dd.company_id || '/' || dd.driver_id || '/' || dd.type || '/v' || v || '.pdf', 'local', repeat('a', 64),
			(($2::date + 9) + time '07:00') AT TIME ZONE 'UTC' + make_interval(months => 4 * (v - 1), days => (hashtext(dd.id::text) & 15))
		FROM driver_documents dd CROSS JOIN generate_series(1, 3) v
		WHERE dd.company_id = $1 AND dd.type IN ('passport', 'drivers_license', 'tachograph_card', 'code_95',
			'medical_examination', 'adr_certificate', 'a1_eu')`, f.Company, first)
	// Each renewal replaced a validity that ended 0–20 days before (late) or after.
	bulk(`
		INSERT INTO document_validity_changes (company_id, document_id, old_valid_until, new_valid_until, changed_at)
		SELECT f.company_id, f.document_id, (f.uploaded_at)::date - (hashtext(f.id::text) & 31) + 10,
			(f.uploaded_at)::date + 120, f.uploaded_at + interval '1 minute'
		FROM document_files f WHERE f.company_id = $1 AND f.version > 1`, f.Company)
	bulk(`
		UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = (f.uploaded_at)::date + 100 + (hashtext(dd.id::text) & 127)
		FROM document_files f WHERE f.document_id = dd.id AND f.is_current AND dd.company_id = $1`, f.Company)
	bulk(`
		WITH src AS (
			SELECT d.id AS driver_id, gen_random_uuid() AS finance_id, k,
				$2::date + 2 + (k * 61 + (hashtext(d.id::text) & 31)) AS incident,
				(100 + (hashtext(d.id::text || k) & 2047))::numeric AS amount
			FROM drivers d CROSS JOIN generate_series(0, 5) k WHERE d.company_id = $1
		), ft AS (
			INSERT INTO finance_transactions (id, company_id, driver_id, transaction_type, amount, status, transaction_date)
			SELECT finance_id, $1, driver_id, 'penalty', -amount, 'pending', incident FROM src
		)
		INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, amount, incident_date, description, status)
		SELECT $1, driver_id, finance_id, 'speeding', amount, incident, 'Speeding',
			CASE WHEN k = 5 THEN 'cancelled' ELSE 'pending' END FROM src`, f.Company, first)
	bulk(`
		INSERT INTO orders (company_id, driver_id, order_date, status)
		SELECT $1, d.id, $2::date + (m * 30 + o * 3 + (hashtext(d.id::text) & 1)), 'completed'
		FROM drivers d CROSS JOIN generate_series(0, 11) m CROSS JOIN generate_series(0, 9) o
		WHERE d.company_id = $1`, f.Company, first)
	f.exec(`ANALYZE`)
}
