package uploads

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
)

// OrphanAge is how old a pending record (StoreInTx) must be before
// SweepOrphans deletes its object: no upload takes that long (a whole
// upload request may take 15 minutes), so its transaction can no longer
// commit.
const OrphanAge = storage.StaleAge

// sweepBatch caps the records one SweepOrphans looks at; the next run
// takes the rest.
const sweepBatch = 10000

// SweepOrphans deletes the stored objects of uploads whose row never
// committed (the process was killed, or the database went away, between
// writing the object and the commit), for the pending records of files'
// disk older than olderThan, and then those records (docs/security.md,
// "Uploads and crashes"). It returns how many objects it deleted. db must
// see every company (the system pool).
//
// It never deletes an object whose upload may still commit: the upload's
// transaction deletes the record first and keeps it locked until it ends,
// and locked records are skipped; a record not yet taken by its
// transaction is younger than olderThan. When the row exists after all,
// only the record goes. Several instances may sweep at once.
func SweepOrphans(ctx context.Context, db *pgxpool.Pool, files storage.Store, olderThan time.Duration) (int, error) {
	rows, err := db.Query(ctx, `
		SELECT id FROM pending_objects
		WHERE storage_disk = $1 AND created_at < now() - make_interval(secs => $2)
		ORDER BY created_at LIMIT $3`, files.Disk(), olderThan.Seconds(), sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("find pending objects: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return 0, fmt.Errorf("find pending objects: %w", err)
	}
	removed := 0
	var errs []error
	for _, id := range ids {
		n, err := sweepOrphan(ctx, db, files, id, olderThan)
		removed += n
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return removed, errors.Join(errs...)
}

// sweepOrphan deletes the object of one pending record, unless its row
// exists, and the record.
func sweepOrphan(ctx context.Context, db *pgxpool.Pool, files storage.Store, id uuid.UUID, olderThan time.Duration) (int, error) {
	removed := 0
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		o := Object{ID: id}
		err := tx.QueryRow(ctx, `
			SELECT company_id, row_table, folder FROM pending_objects
			WHERE id = $1 AND created_at < now() - make_interval(secs => $2)
			FOR UPDATE SKIP LOCKED`, id, olderThan.Seconds()).Scan(&o.CompanyID, &o.Table, &o.Folder)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // its upload's transaction holds it, or it is gone
		}
		if err != nil {
			return fmt.Errorf("lock pending object %s: %w", id, err)
		}
		exists, err := o.rowExists(ctx, tx)
		if err != nil {
			return err
		}
		if !exists {
			paths, err := files.List(ctx, o.Folder)
			if err != nil {
				return fmt.Errorf("pending object %s: %w", id, err)
			}
			for _, p := range paths {
				if !strings.Contains(path.Base(p), id.String()) {
					continue
				}
				if err := files.Delete(ctx, p); err != nil {
					return fmt.Errorf("delete orphaned object %s: %w", p, err)
				}
				removed++
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pending_objects WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete pending object %s: %w", id, err)
		}
		return nil
	})
	return removed, err
}
