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

	"github.com/konvoj/konvoj/internal/faults"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
)

// Object names where an upload's object goes, before its transaction
// runs: the row that will record it (Table, CompanyID, ID) and its Folder.
// The object's name within Folder must contain ID (docs/security.md,
// "Uploads and crashes"): that is how the sweeper finds an object whose row
// never committed.
type Object struct {
	// Table is the table of the row: document_files or penalty_evidence.
	Table     string
	CompanyID uuid.UUID
	ID        uuid.UUID
	Folder    string
}

// rowExists reports whether the object's row exists.
func (o Object) rowExists(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (bool, error) {
	var exists bool
	sql := `SELECT EXISTS (SELECT 1 FROM ` + pgx.Identifier{o.Table}.Sanitize() + ` WHERE company_id = $1 AND id = $2)`
	if err := q.QueryRow(ctx, sql, o.CompanyID, o.ID).Scan(&exists); err != nil {
		return false, fmt.Errorf("row of object %s: %w", o.ID, err)
	}
	return exists, nil
}

// StoreInTx runs fn in one database transaction; fn calls put(path) to
// write r to files at path (in o.Folder) once it knows the path, and
// inserts the row o names. Before anything is written a pending record of
// the object is committed, and fn's transaction deletes it: a crash at any
// point leaves either the row or the record, and the sweeper
// (SweepOrphans) deletes the object of a record an hour old. When the
// transaction fails after the write, including the commit, the stored
// object is deleted at once, unless the row turns out to exist (the
// commit's answer was lost, yet it committed: then the upload succeeded and
// the answer is nil). No orphan file either way.
func StoreInTx(ctx context.Context, db *pgxpool.Pool, files storage.Store, r *Received, o Object,
	fn func(tx pgx.Tx, put func(path string) error) error) error {
	faults.At(faults.BodyReceived)
	if err := recordPending(ctx, db, files.Disk(), o); err != nil {
		return err
	}
	stored := ""
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		// First, so that the record stays locked while the object is
		// written: the sweeper skips locked records.
		tag, err := tx.Exec(ctx, `DELETE FROM pending_objects WHERE company_id = $1 AND id = $2`, o.CompanyID, o.ID)
		if err != nil {
			return fmt.Errorf("take pending object %s: %w", o.ID, err)
		}
		if tag.RowsAffected() != 1 {
			// Swept already (the upload stalled for over an hour):
			// an object written now could outlive a crash unrecorded.
			return fmt.Errorf("pending object %s of %s is gone", o.ID, o.Table)
		}
		err = fn(tx, func(p string) error {
			if path.Dir(p) != o.Folder || !strings.Contains(path.Base(p), o.ID.String()) {
				return fmt.Errorf("store file %s: not in %s or not named by %s", p, o.Folder, o.ID)
			}
			if err := r.rewind(); err != nil {
				return err
			}
			body := faults.Reader(faults.MidStore, r.file, r.size/2)
			if err := files.Put(ctx, p, body, r.size, r.mimeType); err != nil {
				return fmt.Errorf("store file %s: %w", p, err)
			}
			stored = p
			faults.At(faults.ObjectStored)
			return nil
		})
		if err != nil {
			return err
		}
		faults.At(faults.BeforeCommit)
		return nil
	})
	if err == nil {
		return nil
	}
	if stored == "" {
		// Nothing was written (a refused upload, most often): the
		// record goes at once.
		forgetPending(ctx, db, o, &err)
		return err
	}
	if discard(ctx, db, files, o, stored, &err) {
		return nil
	}
	return err
}

// recordPending commits the pending record of an object about to be
// written.
func recordPending(ctx context.Context, db *pgxpool.Pool, disk string, o Object) error {
	if _, err := db.Exec(ctx, `INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk) VALUES ($1, $2, $3, $4, $5)`,
		o.ID, o.CompanyID, o.Table, o.Folder, disk); err != nil {
		return fmt.Errorf("record pending object %s: %w", o.ID, err)
	}
	return nil
}

// discard deletes the stored object of an upload whose transaction failed,
// and then its pending record. A failed commit may still have committed
// (the answer was lost); when the row turns out to exist, the upload
// succeeded and the object stays. When that cannot be told, or the delete
// fails, the error is joined to *err so it gets logged, and the object and
// its record stay for the sweeper.
func discard(ctx context.Context, db *pgxpool.Pool, files storage.Store, o Object, p string, err *error) (committed bool) {
	// The request may be gone (that may be why the upload failed), but the
	// clean-up must still run.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	exists, qerr := o.rowExists(ctx, db)
	if qerr != nil {
		// Whether it committed is unknown: the object and its pending
		// record stay, and the sweeper decides by the row later.
		*err = errors.Join(*err, qerr)
		return false
	}
	if exists {
		return true
	}
	if derr := files.Delete(ctx, p); derr != nil {
		*err = errors.Join(*err, fmt.Errorf("delete orphaned upload %s: %w", p, derr))
		return false
	}
	forgetPending(ctx, db, o, err)
	return false
}

// forgetPending deletes the pending record of an upload that failed and
// left no object; a failure is joined to *err (the sweeper deletes the
// record later).
func forgetPending(ctx context.Context, db *pgxpool.Pool, o Object, err *error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, derr := db.Exec(ctx, `DELETE FROM pending_objects WHERE company_id = $1 AND id = $2`, o.CompanyID, o.ID); derr != nil {
		*err = errors.Join(*err, fmt.Errorf("forget pending object %s: %w", o.ID, derr))
	}
}
