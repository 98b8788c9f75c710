package drivers

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Office is a company office as forms and filters offer it.
type Office struct {
	ID             uuid.UUID `json:"id"`
	Name           string    `json:"name"`
	City           *string   `json:"city"`
	IsHeadquarters bool      `json:"is_headquarters"`
}

// Offices lists the company's live offices, headquarters first, then by
// name: the choices of the list's office filter and of a driver's office.
// Anyone who may read drivers may see them.
func (s *Service) Offices(ctx context.Context, p auth.Principal) ([]Office, error) {
	if _, err := collection(p, auth.DriversRead); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, name, city, is_headquarters FROM offices
		WHERE company_id = $1 AND deleted_at IS NULL
		ORDER BY is_headquarters DESC, name, id`, p.CompanyID)
	if err != nil {
		return nil, fmt.Errorf("list offices of company %s: %w", p.CompanyID, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, o *Office) error {
		return r.Scan(&o.ID, &o.Name, &o.City, &o.IsHeadquarters)
	})
	if err != nil {
		return nil, fmt.Errorf("list offices of company %s: %w", p.CompanyID, err)
	}
	return out, nil
}

// Citizenships lists the citizenships the company's drivers have, as
// ISO 3166-1 alpha-2 codes in alphabetical order: the useful choices of the
// list's citizenship filter. A driver caller sees its own only.
func (s *Service) Citizenships(ctx context.Context, p auth.Principal) ([]string, error) {
	only, err := collection(p, auth.DriversRead)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT DISTINCT citizenship FROM drivers
		WHERE company_id = $1 AND deleted_at IS NULL AND citizenship IS NOT NULL
			AND ($2::uuid IS NULL OR id = $2)
		ORDER BY citizenship`, p.CompanyID, only)
	if err != nil {
		return nil, fmt.Errorf("list citizenships of company %s: %w", p.CompanyID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list citizenships of company %s: %w", p.CompanyID, err)
	}
	return out, nil
}

// Tags lists the distinct tags of the company's live drivers, for the
// list's tag filter (the driver caller's own only).
func (s *Service) Tags(ctx context.Context, p auth.Principal) ([]string, error) {
	only, err := collection(p, auth.DriversRead)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT DISTINCT t FROM drivers, unnest(tags) t
		WHERE company_id = $1 AND deleted_at IS NULL AND ($2::uuid IS NULL OR id = $2)
		ORDER BY t`, p.CompanyID, only)
	if err != nil {
		return nil, fmt.Errorf("list tags of company %s: %w", p.CompanyID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list tags of company %s: %w", p.CompanyID, err)
	}
	return out, nil
}
