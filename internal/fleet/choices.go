package fleet

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
)

// VehicleTags returns the tags the company's live vehicles carry, sorted:
// the choices of the list's tag filter. A driver gets those of its active
// unit's vehicle.
func (s *Service) VehicleTags(ctx context.Context, p auth.Principal) ([]string, error) {
	return s.tags(ctx, p, vehicles)
}

// TrailerTags is VehicleTags for trailers.
func (s *Service) TrailerTags(ctx context.Context, p auth.Principal) ([]string, error) {
	return s.tags(ctx, p, trailers)
}

func (s *Service) tags(ctx context.Context, p auth.Principal, k kindSpec) ([]string, error) {
	only, err := collection(p, auth.FleetRead)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT DISTINCT t FROM `+k.table+` r, unnest(r.tags) t
		WHERE r.company_id = $1 AND r.deleted_at IS NULL
			AND ($2::uuid IS NULL OR r.id IN (SELECT u.`+k.holderColumn()+` FROM transport_units u WHERE u.company_id = $1
				AND u.driver_id = $2 AND u.unassigned_at IS NULL AND u.deleted_at IS NULL))
		ORDER BY t`, p.CompanyID, only)
	if err != nil {
		return nil, fmt.Errorf("list %s tags of company %s: %w", k.table, p.CompanyID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list %s tags of company %s: %w", k.table, p.CompanyID, err)
	}
	return out, nil
}
