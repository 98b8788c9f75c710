package finance

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/webhooks"
)

// The finance area's webhook events (docs/webhooks.md), written in the
// change's transaction with the record as the API returns it.

// transactionEvents are the events of a transaction's status moves.
var transactionEvents = map[string]string{
	StatusApproved:  webhooks.TransactionApproved,
	StatusPaid:      webhooks.TransactionPaid,
	StatusCancelled: webhooks.TransactionCancelled,
}

// emitTransaction writes an event about the transaction id as it now is.
func emitTransaction(ctx context.Context, tx pgx.Tx, companyID, driverID, id uuid.UUID, event string) error {
	t, err := getTransaction(ctx, tx, companyID, driverID, id, false)
	if err != nil {
		return err
	}
	return webhooks.Emit(ctx, tx, companyID, event, t)
}

// emitMove writes the event of a status move of a transaction, if the move
// has one.
func emitMove(ctx context.Context, tx pgx.Tx, t Transaction, from string) error {
	event, ok := transactionEvents[t.Status]
	if !ok || t.Status == from {
		return nil
	}
	return emitTransaction(ctx, tx, t.CompanyID, t.DriverID, t.ID, event)
}

// emitMoved writes the event of a status move of the transaction t as it
// now is (read by its write), if the move has one.
func emitMoved(ctx context.Context, tx pgx.Tx, t Transaction, from string) error {
	event, ok := transactionEvents[t.Status]
	if !ok || t.Status == from {
		return nil
	}
	return webhooks.Emit(ctx, tx, t.CompanyID, event, t)
}

// emitPenalty writes an event about the penalty id as it now is.
func emitPenalty(ctx context.Context, tx pgx.Tx, companyID, driverID, id uuid.UUID, event string) error {
	pen, err := getPenalty(ctx, tx, companyID, driverID, id, false)
	if err != nil {
		return err
	}
	return webhooks.Emit(ctx, tx, companyID, event, pen)
}

// emitMovedPenalty fills the evidence files of the penalty pen as a move
// left it (the answer shows them) and writes the event about it.
func emitMovedPenalty(ctx context.Context, tx pgx.Tx, pen *Penalty, event string) error {
	pens := []Penalty{*pen}
	if err := withEvidence(ctx, tx, pen.CompanyID, pens); err != nil {
		return err
	}
	*pen = pens[0]
	return webhooks.Emit(ctx, tx, pen.CompanyID, event, *pen)
}

// emitPeriod writes an event about the period per as its move left it.
func emitPeriod(ctx context.Context, tx pgx.Tx, per Period, event string) error {
	return webhooks.Emit(ctx, tx, per.CompanyID, event, per)
}
