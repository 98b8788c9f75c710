package imports

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to the imports (docs/development.md, "Access"): the roles of
// auth.DriversImport import files of drivers into their company and read
// its imports.

// importer is the check of the caller's company's imports as a collection
// (a new import, the template, the upload form): the role (403 Forbidden).
func importer(p auth.Principal) error {
	_, err := holders.Collection(p, auth.DriversImport)
	return err
}

// loadImport loads import id (messages in lang) for the caller, in the
// check order of docs/errors.md: the role (403 Forbidden), the import
// exists (404), it is the caller's company (403 AccessDenied).
func (s *Service) loadImport(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, lang i18n.Lang) (Import, error) {
	if err := importer(p); err != nil {
		return Import{}, err
	}
	var r importRow
	err := db.QueryRow(ctx, `SELECT company_id, `+importColumns+` FROM imports WHERE id = $1`, id).Scan(r.dest(&r.company)...)
	if postgres.IsNotFound(err) {
		return Import{}, holders.Hidden(ctx, db, p, "imports", id, apperr.NotFound("msg.imports.not_found"))
	}
	if err != nil {
		return Import{}, fmt.Errorf("load import %s: %w", id, err)
	}
	if err := holders.Reach(p, auth.DriversImport, r.company, uuid.Nil); err != nil {
		return Import{}, err
	}
	return s.decode(ctx, db, r, lang)
}
