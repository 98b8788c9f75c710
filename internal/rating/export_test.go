package rating

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/postgres"
)

// RecalculateForBench rates one driver's month without a principal.
func (s *Service) RecalculateForBench(ctx context.Context, companyID uuid.UUID, period Period, driverID uuid.UUID) error {
	return postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		_, err := rateTx(ctx, tx, companyID, period, []uuid.UUID{driverID}, false)
		return err
	})
}

// LockMonthForTest takes the company month's lock on tx, as a running
// recalculation or company run holds it.
func LockMonthForTest(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period) error {
	return lockMonth(ctx, tx, companyID, period)
}

// PercentileAmongStoredForTest ranks total among the month's stored
// snapshots of the company's other drivers, as the current month's read does.
func PercentileAmongStoredForTest(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period, total decimal.Decimal) (int, error) {
	return percentileAmongStored(ctx, db, companyID, driverID, period, total)
}

// SetRateBatchForTest makes a run rate n drivers at a time until the test ends.
func SetRateBatchForTest(t interface{ Cleanup(func()) }, n int) {
	old := rateBatch
	rateBatch = n
	t.Cleanup(func() { rateBatch = old })
}
