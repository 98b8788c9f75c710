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
	// FolderQuery, when set, finds Folder in the statement that commits
	// the pending record (RecordPending), for a folder named by a row that
	// the upload's transaction loads only later (a document's driver and
	// type): a query of one text column whose parameters are FolderArgs,
	// numbered from $5. When it finds no row, nothing is recorded and the
	// answer is ErrNoFolder.
	FolderQuery string
	FolderArgs  []any
}

// ErrNoFolder is RecordPending's answer when the object's FolderQuery
// finds no row: the row the folder is named by is gone, hidden from the
// caller, or not one the caller may upload to.
var ErrNoFolder = errors.New("uploads: the folder's row was not found")

// Take is handed to fn by StoreRecorded: the statement that takes the
// object's pending record, for the caller's first statement in the
// transaction to run as a WITH query, and Taken, which fn calls with
// whether that statement deleted the record, before it calls put.
type Take struct {
	o     Object
	taken *bool
}

// SQL is the DELETE of the pending record, returning its id, with the
// company and the id as the parameters $first and $first+1 (Args).
func (t Take) SQL(first int) string {
	return fmt.Sprintf(`DELETE FROM pending_objects WHERE company_id = $%d AND id = $%d RETURNING id`, first, first+1)
}

// Args are the parameters of SQL.
func (t Take) Args() []any { return []any{t.o.CompanyID, t.o.ID} }

// Taken records whether the caller's statement deleted the record; a
// record that is gone was swept already (the upload stalled for over an
// hour): an object written now could outlive a crash unrecorded.
func (t Take) Taken(ok bool) error {
	if !ok {
		return fmt.Errorf("pending object %s of %s is gone", t.o.ID, t.o.Table)
	}
	*t.taken = true
	return nil
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
	return store(ctx, db, files, r, o, false, func(tx pgx.Tx, _ Take, put func(string) error) error { return fn(tx, put) })
}

// Pending is an object's pending record committed before its upload's
// body is read (RecordPending), for an upload whose folder is named by a
// row that also tells whether the caller may upload there: the statement
// that records it refuses the caller before anything is read.
type Pending struct{ o Object }

// RecordPending commits the pending record of o (of o.FolderQuery, whose
// ErrNoFolder refuses the upload) before the body is read; the upload goes
// on with StoreRecorded, or ForgetPending when its body is refused.
func RecordPending(ctx context.Context, db *pgxpool.Pool, files storage.Store, o Object) (Pending, error) {
	o, err := recordPending(ctx, db, files.Disk(), o)
	if err != nil {
		return Pending{}, err
	}
	return Pending{o: o}, nil
}

// ForgetPending deletes the pending record of an upload whose body was
// refused (nothing was stored); a failure is joined to *err, and the
// sweeper deletes the record later.
func ForgetPending(ctx context.Context, db *pgxpool.Pool, pd Pending, err *error) {
	forgetPending(ctx, db, pd.o, err)
}

// StoreRecorded is StoreInTx for an object whose pending record is
// committed already (RecordPending), whose fn takes the record itself, in
// its first statement of the transaction (a WITH query of Take.SQL beside
// the read it runs first anyway, which saves the transaction a
// statement), and reports with Take.Taken whether it did, before it calls
// put.
func StoreRecorded(ctx context.Context, db *pgxpool.Pool, files storage.Store, r *Received, pd Pending,
	fn func(tx pgx.Tx, take Take, put func(path string) error) error) error {
	return store(ctx, db, files, r, pd.o, true, fn)
}

func store(ctx context.Context, db *pgxpool.Pool, files storage.Store, r *Received, o Object, recorded bool,
	fn func(tx pgx.Tx, take Take, put func(path string) error) error) error {
	faults.At(faults.BodyReceived)
	takes := recorded
	if !recorded {
		var err error
		if o, err = recordPending(ctx, db, files.Disk(), o); err != nil {
			return err
		}
	}
	stored := ""
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		taken := false
		if !takes {
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
			taken = true
		}
		err := fn(tx, Take{o: o, taken: &taken}, func(p string) error {
			if !taken {
				return fmt.Errorf("store file %s: the pending object %s was not taken", p, o.ID)
			}
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
// written, and returns o with its folder (of FolderQuery, if any).
func recordPending(ctx context.Context, db *pgxpool.Pool, disk string, o Object) (Object, error) {
	if o.FolderQuery == "" {
		if _, err := db.Exec(ctx, `INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk) VALUES ($1, $2, $3, $4, $5)`,
			o.ID, o.CompanyID, o.Table, o.Folder, disk); err != nil {
			return o, fmt.Errorf("record pending object %s: %w", o.ID, err)
		}
		return o, nil
	}
	err := db.QueryRow(ctx, `INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk)
		SELECT $1, $2, $3, f.folder, $4 FROM (`+o.FolderQuery+`) AS f (folder) RETURNING folder`,
		append([]any{o.ID, o.CompanyID, o.Table, disk}, o.FolderArgs...)...).Scan(&o.Folder)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, ErrNoFolder
	}
	if err != nil {
		return o, fmt.Errorf("record pending object %s: %w", o.ID, err)
	}
	return o, nil
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
