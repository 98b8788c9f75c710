package uploads_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
	"github.com/konvoj/konvoj/internal/uploads"
)

// TestSweepOrphans: the sweeper deletes the object of a pending record
// older than the grace period whose row never committed, and the record;
// it keeps a young record's object (its upload may still commit), the
// object of a record whose row exists, the object of a record an open
// upload transaction holds, and every other object of the folder. Local
// storage and S3 alike.
func TestSweepOrphans(t *testing.T) {
	for name, newStore := range map[string]func(*testing.T) storage.Store{
		"local": func(t *testing.T) storage.Store { return storagetest.NewLocal(t) },
		"s3":    func(t *testing.T) storage.Store { return storagetest.NewS3(t) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := pgtest.New(t)
			files := newStore(t)
			company := fixtures.Company(t, db)
			driver := fixtures.Driver(t, db, company)
			var docID uuid.UUID
			if err := db.QueryRow(ctx, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, driver).Scan(&docID); err != nil {
				t.Fatal(err)
			}
			docFolder := fmt.Sprintf("%s/%s/passport", company, driver)
			evFolder := fmt.Sprintf("%s/%s/penalties/%s", company, driver, uuid.New())

			// pending writes an object and its pending record, age old.
			pending := func(table, folder, name string, id uuid.UUID, age time.Duration) string {
				t.Helper()
				p := folder + "/" + name
				if err := files.Put(ctx, p, strings.NewReader("personal data"), 13, "application/pdf"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(ctx, `INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk, created_at)
					VALUES ($1, $2, $3, $4, $5, now() - make_interval(secs => $6))`, id, company, table, folder, files.Disk(), age.Seconds()); err != nil {
					t.Fatal(err)
				}
				return p
			}
			stale := uploads.OrphanAge + time.Minute

			orphanID := uuid.New()
			orphan := pending("document_files", docFolder, fmt.Sprintf("v1_%s.pdf", orphanID), orphanID, stale)
			evOrphanID := uuid.New()
			evOrphan := pending("penalty_evidence", evFolder, evOrphanID.String()+".jpg", evOrphanID, stale)
			youngID := uuid.New()
			young := pending("document_files", docFolder, fmt.Sprintf("v2_%s.pdf", youngID), youngID, uploads.OrphanAge-time.Minute)
			rowID := uuid.New()
			withRow := pending("document_files", docFolder, fmt.Sprintf("v3_%s.pdf", rowID), rowID, stale)
			if _, err := db.Exec(ctx, `INSERT INTO document_files (id, company_id, document_id, filename, original_filename, mime_type,
				size_bytes, version, is_current, storage_path, storage_disk, hash_sha256)
				VALUES ($1, $2, $3, $4, 'a.pdf', 'application/pdf', 13, 3, false, $5, $6, repeat('0', 64))`,
				rowID, company, docID, withRow[len(docFolder)+1:], withRow, files.Disk()); err != nil {
				t.Fatal(err)
			}
			lockedID := uuid.New()
			locked := pending("document_files", docFolder, fmt.Sprintf("v4_%s.pdf", lockedID), lockedID, stale)
			// Stored objects of other uploads in the same folder.
			other := docFolder + "/" + fmt.Sprintf("v5_%s.pdf", uuid.New())
			if err := files.Put(ctx, other, strings.NewReader("x"), 1, "application/pdf"); err != nil {
				t.Fatal(err)
			}

			// An upload's transaction takes its record first and holds it
			// until it ends: the sweeper must leave that object alone.
			tx, err := db.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx) //nolint:errcheck
			if _, err := tx.Exec(ctx, `DELETE FROM pending_objects WHERE id = $1`, lockedID); err != nil {
				t.Fatal(err)
			}

			n, err := uploads.SweepOrphans(ctx, db, files, uploads.OrphanAge)
			if err != nil || n != 2 {
				t.Fatalf("SweepOrphans removed %d (%v), want the 2 orphans", n, err)
			}
			for p, keep := range map[string]bool{orphan: false, evOrphan: false, young: true, withRow: true, locked: true, other: true} {
				if ok, err := files.Exists(ctx, p); err != nil || ok != keep {
					t.Errorf("%s: exists %v (%v), want %v", p, ok, err, keep)
				}
			}
			assertPending(t, db, map[uuid.UUID]bool{orphanID: false, evOrphanID: false, youngID: true, rowID: false, lockedID: true})

			// The upload failed after all (its transaction rolled back):
			// the next sweep takes its object.
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if n, err := uploads.SweepOrphans(ctx, db, files, uploads.OrphanAge); err != nil || n != 1 {
				t.Fatalf("second sweep removed %d (%v), want the rolled-back upload's object", n, err)
			}
			if ok, _ := files.Exists(ctx, locked); ok {
				t.Errorf("%s kept after its upload rolled back", locked)
			}
			assertPending(t, db, map[uuid.UUID]bool{youngID: true, lockedID: false})
		})
	}
}

func assertPending(t *testing.T, db *pgxpool.Pool, want map[uuid.UUID]bool) {
	t.Helper()
	for id, keep := range want {
		var n int
		if err := db.QueryRow(context.Background(), `SELECT count(*) FROM pending_objects WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n == 1) != keep {
			t.Errorf("pending record %s: present %v, want %v", id, n == 1, keep)
		}
	}
}
