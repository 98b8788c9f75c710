package webtest

import (
	"context"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// Driver inserts a driver of the company with its 14 empty documents
// (fixtures.Driver on the test's database) and returns its id.
func (e *Env) Driver(company uuid.UUID, opts ...fixtures.DriverOption) uuid.UUID {
	e.T.Helper()
	return fixtures.Driver(e.T, e.DB, company, opts...)
}

// FileAll gives every document of the holder (a driver, vehicle or
// trailer) a current file, where it has none, and makes it valid until
// until (registration certificates have no expiry): a holder whose
// documents are all usable, for the tests of readiness.
func (e *Env) FileAll(holder uuid.UUID, until civil.Date) {
	e.T.Helper()
	ctx := context.Background()
	if _, err := e.DB.Exec(ctx, `
		WITH d AS (SELECT id, company_id FROM driver_documents WHERE holder_id = $1 AND current_file_id IS NULL),
		f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				is_current, storage_path, storage_disk, hash_sha256)
			SELECT d.company_id, d.id, 'v1_' || d.id || '.pdf', 'scan.pdf', 'application/pdf', 1000, 1, true, 'x/' || d.id, 'local', repeat('a', 64)
			FROM d RETURNING id, document_id
		)
		UPDATE driver_documents dd SET current_file_id = f.id FROM f WHERE dd.id = f.document_id`, holder); err != nil {
		e.T.Fatal(err)
	}
	if _, err := e.DB.Exec(ctx, `UPDATE driver_documents
		SET valid_until = CASE WHEN type = 'registration_certificate' THEN NULL ELSE $2::date END WHERE holder_id = $1`, holder, until); err != nil {
		e.T.Fatal(err)
	}
}
