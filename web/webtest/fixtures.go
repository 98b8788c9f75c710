package webtest

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
)

// DriverFixture is what Driver inserts; zero fields get defaults.
type DriverFixture struct {
	FirstName, LastName, Email, Status string
	HireDate                           string // YYYY-MM-DD or empty
}

// Driver inserts an active driver with its 14 empty documents straight into
// the database (fixtures for tests of other areas) and returns its id.
func (e *Env) Driver(company uuid.UUID, f DriverFixture) uuid.UUID {
	e.T.Helper()
	if f.FirstName == "" {
		f.FirstName = "Jan"
	}
	if f.LastName == "" {
		f.LastName = "Novák"
	}
	if f.Email == "" {
		f.Email = fmt.Sprintf("driver-%s@example.test", uuid.NewString()[:8])
	}
	if f.Status == "" {
		f.Status = "active"
	}
	var id uuid.UUID
	err := postgres.InTx(context.Background(), e.DB, func(tx pgx.Tx) error {
		var seq int64
		if err := tx.QueryRow(context.Background(),
			`UPDATE companies SET driver_number_seq = driver_number_seq + 1 WHERE id = $1 RETURNING driver_number_seq`, company).Scan(&seq); err != nil {
			return err
		}
		if err := tx.QueryRow(context.Background(), `
			INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, status, hire_date)
			VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, '')::date) RETURNING id`,
			company, fmt.Sprintf("DRV-%04d", seq), seq, f.FirstName, f.LastName, f.Email, f.Status, f.HireDate).Scan(&id); err != nil {
			return err
		}
		return documents.CreateForDriver(context.Background(), tx, company, id)
	})
	if err != nil {
		e.T.Fatalf("webtest: insert driver: %v", err)
	}
	return id
}
