package rating

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to ratings (docs/development.md, "Access"): a driver's rating
// hangs off the driver (holders.LoadDriver: the roles of auth.RatingRead,
// a driver its own only; recalculating is auth.RatingManage); the ranking
// is the company's; the configuration is the company's record
// (holders.Company).

// ratedDriver is a driver loaded for the caller (loadDriver): what the
// reads of its rating need of it.
type ratedDriver = holders.Driver

// loadDriver loads driver id, whose rating the caller's action a reads or
// writes: role, existence, company and own record, in that order.
func loadDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (ratedDriver, error) {
	return holders.LoadDriver(ctx, db, p, a, id)
}

// loadDriverWith is loadDriver for reading a rating (auth.RatingRead) with
// the reads queue adds to the lookup's round trip (holders.LoadDriverWith).
func loadDriverWith(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, queue func(b *pgx.Batch)) (ratedDriver, error) {
	return holders.LoadDriverWith(ctx, db, p, auth.RatingRead, id, queue)
}

// wholeCompany is the check of the company's ranking board (the page and
// its export): the role may read ratings (403 Forbidden), over the whole
// company. A caller limited to its own rating (a driver) has no ranking:
// 403 Forbidden too (its page is its own rating).
func wholeCompany(p auth.Principal) error {
	only, err := holders.Collection(p, auth.RatingRead)
	if err != nil {
		return err
	}
	if only != nil {
		return apperr.Forbidden()
	}
	return nil
}

// rankingOf is the check of the ranking the API lists: the role (403
// Forbidden); only is the driver a caller limited to its own row is
// narrowed to (nil: the whole company).
func rankingOf(p auth.Principal) (only *uuid.UUID, err error) {
	return holders.Collection(p, auth.RatingRead)
}

// configOf checks the caller's action a on the rating configuration of
// company companyID: the role (403 Forbidden), the company exists (404), it
// is the caller's (403 AccessDenied).
func configOf(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, companyID uuid.UUID) error {
	return holders.Company(ctx, db, p, a, companyID)
}

// loadConfigFor loads the rating configuration of company companyID for
// the caller's action a (configOf's checks first).
func loadConfigFor(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, companyID uuid.UUID) (Config, error) {
	if err := configOf(ctx, db, p, a, companyID); err != nil {
		return Config{}, err
	}
	return loadConfig(ctx, db, companyID, false)
}
