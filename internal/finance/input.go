package finance

import (
	"context"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
)

// Op names an operation of the finance area for InputError: the action it
// needs and the kind of record (if any) its path names besides the driver.
type Op struct {
	action auth.Action
	record string // "", "transaction", "penalty" or "period"
}

// The operations whose request carries a body or query values.
var (
	OpListTransactions  = Op{auth.FinanceRead, ""}
	OpCreateTransaction = Op{auth.FinanceWrite, ""}
	OpUpdateTransaction = Op{auth.FinanceWrite, "transaction"}
	OpListPeriods       = Op{auth.FinanceRead, ""}
	OpClosePeriod       = Op{auth.PeriodsManage, "period"}
	OpPayPeriod         = Op{auth.PeriodsManage, "period"}
	OpAggregates        = Op{auth.FinanceRead, ""}
	OpListPenalties     = Op{auth.PenaltiesRead, ""}
	OpCreatePenalty     = Op{auth.PenaltiesManage, ""}
	OpGetPenalty        = Op{auth.PenaltiesRead, "penalty"}
	OpDisputePenalty    = Op{auth.PenaltiesRespond, "penalty"}
	OpResolvePenalty    = Op{auth.PenaltiesManage, "penalty"}
	OpAcceptPenalty     = Op{auth.PenaltiesRespond, "penalty"}
)

// InputError answers a request whose body or query values could not be
// read (inputErr, a 400 or 422). A broken input is an input problem, so the
// checks that come before the input (docs/errors.md) answer first: the role
// (403 Forbidden), the driver and the record (404), the company and, for a
// driver caller, its own record (403 AccessDenied). Only when they all pass
// is inputErr the answer.
func (s *Service) InputError(ctx context.Context, p auth.Principal, op Op, driverID, recordID uuid.UUID, inputErr error) error {
	d, err := s.driverFor(ctx, p, op.action, driverID)
	if err != nil {
		return err
	}
	switch op.record {
	case "transaction":
		_, err = getTransaction(ctx, s.db, d.CompanyID, d.ID, recordID, false)
	case "penalty":
		_, err = getPenalty(ctx, s.db, d.CompanyID, d.ID, recordID, false)
	case "period":
		err = s.periodExists(ctx, d, recordID)
	}
	if err != nil {
		return err
	}
	return inputErr
}
