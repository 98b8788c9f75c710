package drivers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// The index-friendly ranges of the document_status filter select exactly
// the documents konvoj_document_status puts in each status, around every
// threshold (no file, no expiry, days -46..48).
func TestStatusRangesMatchStatusFunction(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := fixtures.Company(t, db, fixtures.CompanyName("Acme"), fixtures.TimeZone("Pacific/Kiritimati"))
	for i := 1; i <= 7; i++ {
		fixtures.Driver(t, db, company, fixtures.Name("A", "B"), fixtures.Email(fmt.Sprintf("d%d@example.cz", i)))
	}
	for _, step := range []struct {
		sql  string
		args []any
	}{
		{`WITH n AS (SELECT id, row_number() OVER (ORDER BY id) AS k FROM driver_documents WHERE company_id = $1),
		f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version, storage_path, storage_disk, hash_sha256)
			SELECT $1, n.id, 'v1.pdf', 'a.pdf', 'application/pdf', 1, 1, 'x', 'local', repeat('a', 64) FROM n WHERE n.k > 2
			RETURNING id, document_id
		)
		UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = CASE WHEN n.k = 3 THEN NULL ELSE konvoj_today('Pacific/Kiritimati') + (n.k::int - 50) END
		FROM f JOIN n ON n.id = f.document_id WHERE dd.id = f.document_id`, []any{company}},
	} {
		if _, err := db.Exec(ctx, step.sql, step.args...); err != nil {
			t.Fatal(err)
		}
	}
	for status, cond := range drivers.StatusRanges {
		rows, err := db.Query(ctx, `
			WITH co AS (SELECT konvoj_today(c.timezone) AS today FROM companies c WHERE c.id = $1)
			SELECT konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, co.today) = $2,
				coalesce(`+cond+`, false), dd.valid_until - co.today
			FROM driver_documents dd CROSS JOIN co WHERE dd.company_id = $1`, company, status)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for rows.Next() {
			var byFunction, byRange bool
			var days *int
			if err := rows.Scan(&byFunction, &byRange, &days); err != nil {
				t.Fatal(err)
			}
			if byFunction != byRange {
				t.Errorf("%s: document %v days left: function %v, range %v", status, days, byFunction, byRange)
			}
			if byFunction {
				matched++
			}
		}
		rows.Close()
		if matched == 0 {
			t.Errorf("%s: no document in this status; the test data misses it", status)
		}
	}
}
