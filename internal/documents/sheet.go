package documents

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
)

// Sheet is what the document page shows of one document of a driver.
type Sheet struct {
	DriverID     uuid.UUID
	DriverName   string
	DriverNumber string
	Document     Document
	// Versions are the file versions, newest first, when ShowVersions;
	// then Document.Files is left out (nil).
	Versions []Version
	// ShowVersions: the caller may read the versions; CanUpload: it may
	// upload a new one.
	ShowVersions, CanUpload bool
	// Reviewed: the caller's changes to the document wait for review.
	Reviewed bool
}

// Sheet loads document documentID of driver driverID as the document page
// shows it, in one round trip: the driver (checked for auth.DocumentsList:
// a role that may read drivers but not their documents, the accountant, is
// refused), its documents of live types, of which this one must be (404),
// and, for a caller who may read them, the document's versions, and for
// one who may upload, whether its changes wait for review.
func (s *Service) Sheet(ctx context.Context, p auth.Principal, driverID, documentID uuid.UUID) (*Sheet, error) {
	sh := &Sheet{ShowVersions: mayReadFiles(p), CanUpload: mayWrite(p)}
	var docs []Document
	review := map[string]bool{}
	askReview := sh.ShowVersions && sh.CanUpload && !reviewsOwnChanges(p)
	driver, versions, err := sheetDriver(ctx, s.db, p, auth.DocumentsList, driverID, documentID, sh.ShowVersions, func(b *pgx.Batch) {
		// The versions say how many files the document has: the files of
		// the driver's other documents are not shown.
		queueDocuments(b, p.CompanyID, HolderDriver, driverID, nil, p.Today(), withFiles(p) && !sh.ShowVersions, &docs)
		if askReview {
			b.Queue(`SELECT document_type, requires_review FROM konvoj_document_rules($1)`, p.CompanyID).Query(func(rows pgx.Rows) error {
				var typ string
				var on bool
				_, err := pgx.ForEachRow(rows, []any{&typ, &on}, func() error {
					review[typ] = on
					return nil
				})
				return err
			})
		}
	})
	if err != nil {
		return nil, err
	}
	sh.Versions = versions
	sh.DriverID, sh.DriverName, sh.DriverNumber = driver.ID, driver.Name, driver.Number
	found := false
	for _, d := range docs {
		if d.ID == documentID {
			sh.Document, found = d, true
		}
	}
	if !found {
		return nil, apperr.NotFound("msg.common.not_found.document")
	}
	sh.Reviewed = askReview && review[sh.Document.Type]
	return sh, nil
}
