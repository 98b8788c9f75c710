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
// those imports; the roles of auth.FleetWrite do the same with vehicles and
// trailers.

// action is the permission of the kind's imports.
func (k Kind) action() auth.Action {
	if k.isFleet() {
		return auth.FleetWrite
	}
	return auth.DriversImport
}

// importer is the check of the caller's company's imports of kind as a
// collection (a new import, the template, the upload form): the role (403
// Forbidden).
func importer(p auth.Principal, kind Kind) error {
	_, err := holders.Collection(p, kind.action())
	return err
}

// Importable are the kinds the caller may import, in the page's order.
func Importable(p auth.Principal) []Kind {
	var out []Kind
	for _, k := range Kinds {
		if importer(p, k) == nil {
			out = append(out, k)
		}
	}
	return out
}

// loadImport loads import id (messages in lang) for the caller, in the
// check order of docs/errors.md: the role may import something (403
// Forbidden, before any query), the import exists (404), it is the caller's
// company (403 AccessDenied) and the role may import its kind (403
// Forbidden).
func (s *Service) loadImport(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, lang i18n.Lang) (Import, error) {
	kinds := Importable(p)
	if len(kinds) == 0 {
		return Import{}, importer(p, Drivers)
	}
	var r importRow
	err := db.QueryRow(ctx, `SELECT company_id, `+importColumns+` FROM imports WHERE id = $1`, id).Scan(r.dest(&r.company)...)
	if postgres.IsNotFound(err) {
		return Import{}, holders.Hidden(ctx, db, p, "imports", id, apperr.NotFound("msg.imports.not_found"))
	}
	if err != nil {
		return Import{}, fmt.Errorf("load import %s: %w", id, err)
	}
	// The company first (with an action the role has), then the kind.
	if err := holders.Reach(p, kinds[0].action(), r.company, uuid.Nil); err != nil {
		return Import{}, err
	}
	if err := holders.Reach(p, Kind(r.im.Kind).action(), r.company, uuid.Nil); err != nil {
		return Import{}, err
	}
	return s.decode(ctx, db, r, lang)
}
