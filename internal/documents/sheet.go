package documents

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
)

// Sheet is what the document page shows of one document of a driver, a
// vehicle or a trailer.
type Sheet struct {
	// HolderType is the holder's (HolderDriver, HolderVehicle,
	// HolderTrailer); HolderName names it (a driver's name, a vehicle's or
	// a trailer's plate) and HolderNumber is its internal number.
	HolderType   string
	HolderID     uuid.UUID
	HolderName   string
	HolderNumber string
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
	sh := &Sheet{HolderType: HolderDriver, ShowVersions: mayReadFiles(p), CanUpload: mayWrite(p)}
	var docs []Document
	review := map[string]bool{}
	askReview := sh.ShowVersions && sh.CanUpload && !reviewsOwnChanges(p)
	driver, versions, err := sheetDriver(ctx, s.db, p, auth.DocumentsList, driverID, documentID, sh.ShowVersions, func(b *pgx.Batch) {
		// The versions say how many files the document has: the files of
		// the driver's other documents are not shown.
		queueDocuments(b, p.CompanyID, HolderDriver, driverID, "", nil, p.Today(), withFiles(p) && !sh.ShowVersions, &docs)
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
	sh.HolderID, sh.HolderName, sh.HolderNumber = driver.ID, driver.Name, driver.Number
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

// FleetSheet loads document documentID of vehicle or trailer id
// (holderType HolderVehicle or HolderTrailer) as the document page shows
// it: the record (checked for auth.FleetRead: a driver only its own unit's),
// its documents of live types, of which this one must be (404), and, for
// a caller who may handle the fleet's documents (auth.FleetDocuments), the
// document's versions and the upload. Their uploads count at once (no
// review).
func (s *Service) FleetSheet(ctx context.Context, p auth.Principal, holderType string, id, documentID uuid.UUID) (*Sheet, error) {
	f, err := loadFleet(ctx, s.db, p, auth.FleetRead, holderType, id)
	if err != nil {
		return nil, err
	}
	files := withFleetFiles(p)
	sh := &Sheet{HolderType: holderType, HolderID: f.ID, ShowVersions: files, CanUpload: files}
	var docs []Document
	b := &pgx.Batch{}
	b.Queue(`SELECT internal_number, plate_number FROM `+fleetTable(holderType)+` WHERE id = $1 AND company_id = $2`, f.ID, f.CompanyID).
		QueryRow(func(row pgx.Row) error { return row.Scan(&sh.HolderNumber, &sh.HolderName) })
	queueDocuments(b, f.CompanyID, holderType, f.ID, f.Type, nil, p.Today(), false, &docs)
	if files {
		b.Queue(versionsSQL, documentID, f.CompanyID).Query(func(rows pgx.Rows) error {
			var err error
			sh.Versions, err = scanVersions(rows)
			return err
		})
	}
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("load document %s of %s %s: %w", documentID, holderType, id, err)
	}
	for _, d := range docs {
		if d.ID == documentID {
			sh.Document = d
			return sh, nil
		}
	}
	return nil, apperr.NotFound("msg.common.not_found.document")
}

// fleetTable is the table of a fleet holder type's records.
func fleetTable(holderType string) string {
	if holderType == HolderTrailer {
		return "trailers"
	}
	return "vehicles"
}
