package documents

import (
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
)

// Received is a file another area received the way document files are
// received (ReceiveFile): spooled to a temporary file, its type detected
// from the content, its size and SHA-256 known. Remove deletes the
// temporary file.
type Received struct{ up *upload }

// Remove deletes the temporary file.
func (r *Received) Remove() {
	if r != nil {
		r.up.remove()
	}
}

// Size is the file's size in bytes.
func (r *Received) Size() int64 { return r.up.size }

// SHA256 is the lower-case hex SHA-256 of the file.
func (r *Received) SHA256() string { return r.up.sha256 }

// MimeType is the type detected from the content.
func (r *Received) MimeType() string { return r.up.mimeType }

// Ext is the extension of stored files of the detected type.
func (r *Received) Ext() string { return r.up.ext }

// OriginalName is the client's file name, sanitized (SanitizeFilename).
func (r *Received) OriginalName() string { return r.up.originalName }

// ReceiveFile reads a multipart upload body with the checks of a document
// upload (docs/drivers-and-documents.md): the "file" part is required, its
// type detected from the content (415 when not allowed), at most maxBytes
// (413), hashed while spooled. fields are the text parts the body may carry
// besides (name → largest value in bytes); their values are returned, blank
// ones left out. label names a part in messages; fallback is the stem of
// the original name when the client sends none. The caller removes the
// file.
func ReceiveFile(mr *multipart.Reader, maxBytes int64, fallback string, fields map[string]int64,
	label func(string) i18n.Message) (*Received, map[string]string, error) {
	files, values, err := receive(mr, maxBytes, form{fallback: fallback, limit: limitOf(fields), label: label})
	if err != nil {
		return nil, values, err
	}
	return files[0], values, nil
}

// ReceiveFiles is ReceiveFile for a form whose "file" parts are optional
// and may be up to maxFiles (a file input with multiple): each file is
// checked alike, and the whole body is refused if one is refused. A
// refused body still answers the text parts read before the refusal, so a
// page can show its form again with them.
func ReceiveFiles(mr *multipart.Reader, maxBytes int64, maxFiles int, fallback string, fields map[string]int64,
	label func(string) i18n.Message) ([]*Received, map[string]string, error) {
	return receive(mr, maxBytes, form{fallback: fallback, limit: limitOf(fields), label: label, maxFiles: maxFiles, optional: true})
}

func limitOf(fields map[string]int64) func(string) int64 {
	return func(name string) int64 { return fields[name] }
}

func receive(mr *multipart.Reader, maxBytes int64, f form) ([]*Received, map[string]string, error) {
	values := map[string]string{}
	f.set = func(_ *apperr.Validation, name, value string) {
		if strings.TrimSpace(value) != "" {
			values[name] = value
		}
	}
	ups, err := readForm(mr, maxBytes, f)
	if err != nil {
		return nil, values, err // what was read before, to show the form again
	}
	files := make([]*Received, len(ups))
	for i, up := range ups {
		files[i] = &Received{up: up}
	}
	return files, values, nil
}

// StoreInTx runs fn in one database transaction; fn calls put(path) to
// write r to files at path once it knows the path, and inserts the row id
// of table that records it. When the transaction fails after the write,
// including the commit, the stored object is deleted again, unless the row
// turns out to exist (the commit's answer was lost, yet it committed: then
// the upload succeeded and the answer is nil). No orphan file either way.
func StoreInTx(ctx context.Context, db *pgxpool.Pool, files storage.Store, r *Received, table string, companyID, id uuid.UUID,
	fn func(tx pgx.Tx, put func(path string) error) error) error {
	return storeInTx(ctx, db, files, r.up, table, companyID, id, fn)
}

func storeInTx(ctx context.Context, db *pgxpool.Pool, files storage.Store, up *upload, table string, companyID, id uuid.UUID,
	fn func(tx pgx.Tx, put func(path string) error) error) error {
	stored := ""
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		return fn(tx, func(path string) error {
			if err := up.rewind(); err != nil {
				return err
			}
			if err := files.Put(ctx, path, up.file, up.size, up.mimeType); err != nil {
				return fmt.Errorf("store file %s: %w", path, err)
			}
			stored = path
			return nil
		})
	})
	if err != nil && stored != "" && discard(ctx, db, files, table, companyID, id, stored, &err) {
		return nil
	}
	return err
}

// discard deletes the stored object of an upload whose transaction failed.
// A failed commit may still have committed (the answer was lost); when the
// row turns out to exist, the upload succeeded and the object stays.
// Otherwise a failure to delete is joined to *err so it gets logged.
func discard(ctx context.Context, db *pgxpool.Pool, files storage.Store, table string, companyID, id uuid.UUID, path string, err *error) (committed bool) {
	// The request may be gone (that may be why the upload failed), but the
	// clean-up must still run.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var exists bool
	q := `SELECT EXISTS (SELECT 1 FROM ` + pgx.Identifier{table}.Sanitize() + ` WHERE company_id = $1 AND id = $2)`
	if qerr := db.QueryRow(ctx, q, companyID, id).Scan(&exists); qerr == nil && exists {
		return true
	}
	if derr := files.Delete(ctx, path); derr != nil {
		*err = errors.Join(*err, fmt.Errorf("delete orphaned upload %s: %w", path, derr))
	}
	return false
}
