package finance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// CreatePenalty records a pending penalty and, in the same database
// transaction, its finance record: type penalty, category damage_fine for
// damage and accident and penalty otherwise, amount = −amount, dated on the
// incident date (so an incident inside a closed or paid period is 409).
func (s *Service) CreatePenalty(ctx context.Context, p auth.Principal, ref Ref, in PenaltyInput) (Penalty, error) {
	d := ref.DriverRef
	_, err := ref.check(p, auth.PenaltiesManage, "")
	if err != nil {
		return Penalty{}, err
	}
	var v apperr.Validation
	pen := in.apply(Penalty{CompanyID: d.CompanyID(), DriverID: d.ID(), Status: PenaltyPending, Severity: "minor", Currency: companyCurrency(p),
		Metadata: json.RawMessage(`{}`)}, &v)
	if err := v.Err(); err != nil {
		return Penalty{}, err
	}
	var id uuid.UUID
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		financeID, err := insertTransaction(ctx, tx, p, pen.financeRecord())
		if err != nil {
			return err
		}
		if id, err = insertPenaltyRow(ctx, tx, pen, financeID, userID(p)); err != nil {
			return err
		}
		if err := emitTransaction(ctx, tx, d.CompanyID(), d.ID(), financeID, webhooks.TransactionCreated); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: id, Action: "penalty.created",
			NewValues: pen.createdValues(financeID)}); err != nil {
			return err
		}
		return emitPenalty(ctx, tx, d.CompanyID(), d.ID(), id, webhooks.PenaltyCreated)
	})
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID(), d.ID(), id, false)
}

// GetPenalty reads one penalty of the driver.
func (s *Service) GetPenalty(ctx context.Context, p auth.Principal, ref Ref) (Penalty, error) {
	d := ref.DriverRef
	id, err := ref.check(p, auth.PenaltiesRead, PenaltyRecord)
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID(), d.ID(), id, false)
}

// DisputePenalty files the driver's dispute of a pending penalty: the
// penalty becomes disputed (dispute_reason, dispute_submitted_at; evidence
// is appended), and its finance record disputed.
func (s *Service) DisputePenalty(ctx context.Context, p auth.Principal, ref Ref, in DisputeInput) (Penalty, error) {
	var v apperr.Validation
	reason := requiredText(&v, "dispute_reason", in.DisputeReason, maxPenaltyText)
	evidence := parseEvidence(in.Evidence, &v)
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, ref, func(cur Penalty) (penaltyMove, error) {
		if err := v.Err(); err != nil {
			return penaltyMove{}, err
		}
		if cur.Status != PenaltyPending {
			return penaltyMove{}, apperr.Conflict("msg.penalties.dispute_not_pending", "status", penaltyState(cur.Status))
		}
		all := append(append([]Evidence{}, cur.Evidence...), evidence...)
		if len(all) > maxEvidence {
			return penaltyMove{}, apperr.Invalid("evidence", "msg.penalties.evidence_total", "max", maxEvidence)
		}
		return penaltyMove{action: "penalty.disputed", status: PenaltyDisputed, financeStatus: StatusDisputed,
			set: `dispute_reason = $3, dispute_submitted_at = now(), evidence = $4`, args: []any{reason, mustJSON(all)},
			audit: map[string]any{"dispute_reason": reason, "evidence": all}}, nil
	})
}

// ResolvePenalty settles a disputed penalty: keep (resolved, finance record
// back to pending), reduce (resolved with amount = new_amount, 0 ≤
// new_amount < amount; finance record pending with −new_amount) or cancel
// (penalty and finance record cancelled).
func (s *Service) ResolvePenalty(ctx context.Context, p auth.Principal, ref Ref, in ResolveInput) (Penalty, error) {
	return s.movePenalty(ctx, p, auth.PenaltiesManage, ref, func(cur Penalty) (penaltyMove, error) {
		var v apperr.Validation
		r := in.read(cur, &v)
		if err := v.Err(); err != nil {
			return penaltyMove{}, err
		}
		if cur.Status != PenaltyDisputed {
			return penaltyMove{}, apperr.Conflict("msg.finance.resolve_not_disputed", "status", penaltyState(cur.Status))
		}
		m := penaltyMove{action: "penalty.resolved", status: PenaltyResolved, financeStatus: StatusPending,
			set:   `resolution = $3, resolved_by = $4, resolved_at = now(), amount = $5`,
			args:  []any{r.text, userID(p), r.newAmount},
			audit: map[string]any{"resolution": r.text, "amount": r.newAmount}}
		if r.action == "cancel" {
			m.status, m.financeStatus = PenaltyCancelled, StatusCancelled
		}
		if !r.newAmount.Equal(cur.Amount) {
			a := r.newAmount.Neg()
			m.financeAmount = &a
		}
		return m, nil
	})
}

// AcceptPenalty records that the driver accepts a pending penalty. Its
// finance record stays pending, ready for approval and payment.
func (s *Service) AcceptPenalty(ctx context.Context, p auth.Principal, ref Ref) (Penalty, error) {
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, ref, func(cur Penalty) (penaltyMove, error) {
		if cur.Status != PenaltyPending {
			return penaltyMove{}, apperr.Conflict("msg.penalties.accept_not_pending", "status", penaltyState(cur.Status))
		}
		return penaltyMove{action: "penalty.accepted", status: PenaltyAccepted, financeStatus: StatusPending}, nil
	})
}

// movePenalty runs a penalty operation: role, driver and penalty checks,
// then in one database transaction the penalty row, its finance record's
// periods and the finance row are locked (in the package's lock order);
// plan validates the input (422) and the penalty's state (409); then the
// penalty, the finance record, the period totals and both audit rows are
// written. A record inside a closed or paid period is not changed: see
// applyPenaltyMove.
func (s *Service) movePenalty(ctx context.Context, p auth.Principal, a auth.Action, ref Ref,
	plan func(cur Penalty) (penaltyMove, error)) (Penalty, error) {
	d := ref.DriverRef
	id, err := ref.check(p, a, PenaltyRecord)
	if err != nil {
		return Penalty{}, err
	}
	day := p.Today()
	// Set when an attempt found that the move posts a correction: the
	// next attempt locks the period of day with the record's.
	correct := false
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := getPenalty(ctx, tx, d.CompanyID(), d.ID(), id, true)
		if err != nil {
			return err
		}
		m, err := plan(cur)
		if err != nil {
			return err
		}
		return applyPenaltyMove(ctx, tx, p, cur, m, day, &correct)
	})
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID(), d.ID(), id, false)
}

// applyPenaltyMove locks the finance record of the locked penalty cur and
// its periods and writes the move with its period totals and audit rows.
//
// A record inside a closed or paid period stays as it was: only the penalty
// moves (the driver's right to dispute does not end with the period), and a
// move that changes money posts a correction into the driver's open monthly
// period of day (docs/finance.md, "Penalties inside a closed period"). That
// period is locked with the record's, in the package's lock order: an
// attempt that finds it needs one without having locked it sets *correct
// and asks for a retry (errRelock).
func applyPenaltyMove(ctx context.Context, tx pgx.Tx, p auth.Principal, cur Penalty, m penaltyMove, day civil.Date, correct *bool) error {
	rec, err := getTransaction(ctx, tx, cur.CompanyID, cur.DriverID, cur.FinanceID, false)
	if err != nil {
		return fmt.Errorf("finance record of penalty %s: %w", cur.ID, err)
	}
	var place *slot
	if *correct {
		place = &slot{Date: day, Currency: rec.Currency}
	}
	periods, err := lockRecord(ctx, tx, rec, place)
	if err != nil {
		return err
	}
	oldValues, newValues := m.auditDiff(cur)
	if _, closed := LockedBy(periods, rec.TransactionDate, rec.Currency); closed {
		amount := m.correctionAmount(rec)
		if !amount.IsZero() && !*correct {
			*correct = true
			return errRelock
		}
		if err := movePenaltyRow(ctx, tx, cur.CompanyID, cur.ID, m); err != nil {
			return err
		}
		if !amount.IsZero() {
			correctionID, err := insertTransaction(ctx, tx, p, cur.correction(rec, amount, day))
			if err != nil {
				return err
			}
			if err := setCorrection(ctx, tx, cur.CompanyID, cur.ID, correctionID); err != nil {
				return err
			}
			if err := emitTransaction(ctx, tx, cur.CompanyID, cur.DriverID, correctionID, webhooks.TransactionCreated); err != nil {
				return err
			}
			oldValues["correction_id"], newValues["correction_id"] = nil, correctionID
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: cur.ID, Action: m.action,
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		return emitPenalty(ctx, tx, cur.CompanyID, cur.DriverID, cur.ID, m.action)
	}
	next := m.record(rec)
	if err := movePenaltyRow(ctx, tx, cur.CompanyID, cur.ID, m); err != nil {
		return err
	}
	if err := moveRecordRow(ctx, tx, cur.ID, next); err != nil {
		return err
	}
	if err := periods.recompute(ctx, tx); err != nil {
		return err
	}
	if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: cur.ID, Action: m.action,
		OldValues: oldValues, NewValues: newValues}); err != nil {
		return err
	}
	if oldValues, newValues := audit.Diff(rec.auditValues(), next.auditValues()); len(newValues) > 0 {
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: rec.ID, Action: "updated",
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		if err := emitMove(ctx, tx, next, rec.Status); err != nil {
			return err
		}
	}
	// The actions are the event names: penalty.disputed, .accepted, .resolved.
	return emitPenalty(ctx, tx, cur.CompanyID, cur.DriverID, cur.ID, m.action)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ListPenalties returns a page of the driver's penalties, newest incident
// first, and the summary of the whole filtered set.
func (s *Service) ListPenalties(ctx context.Context, p auth.Principal, ref Ref, f PenaltyFilter) (PenaltyList, error) {
	d := ref.DriverRef
	_, err := ref.check(p, auth.PenaltiesRead, "")
	if err != nil {
		return PenaltyList{}, err
	}
	if err := f.check(); err != nil {
		return PenaltyList{}, err
	}
	counts, page, err := penaltyList(ctx, s.db, d.CompanyID(), d.ID(), f)
	if err != nil {
		return PenaltyList{}, err
	}
	return newPenaltyList(p, counts, page), nil
}

// ReadPenalties is ListPenalties with its own guard (Authorize for
// auth.PenaltiesRead): the guard's lookup, the counts, the page and its
// evidence files go to PostgreSQL in one round trip
// (tenants.AuthorizeDriverWith, docs/development.md, "Guard and read in one
// round trip"). A filter that fails validation must answer after the
// guard's 403 and 404: it runs the guard alone first.
func (s *Service) ReadPenalties(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PenaltyFilter) (PenaltyList, error) {
	if err := f.check(); err != nil {
		if _, gerr := s.Authorize(ctx, p, auth.PenaltiesRead, driverID); gerr != nil {
			return PenaltyList{}, gerr
		}
		return PenaltyList{}, err
	}
	var counts []penaltyCounts
	var page []Penalty
	_, err := tenants.AuthorizeDriverWith(ctx, s.db, p, auth.PenaltiesRead, driverID, func(b *pgx.Batch) {
		queuePenaltyList(b, p.CompanyID, driverID, f, &counts, &page)
	})
	if err != nil {
		return PenaltyList{}, err
	}
	return newPenaltyList(p, counts, page), nil
}

// newPenaltyList is the answer of a penalty list: the page and the counts
// and totals of the filtered set.
func newPenaltyList(p auth.Principal, counts []penaltyCounts, page []Penalty) PenaltyList {
	out := summarizePenalties(counts, companyCurrency(p))
	if page != nil {
		out.Penalties = page
	}
	return out
}

// check validates the filter's values (422).
func (f PenaltyFilter) check() error {
	var v apperr.Validation
	checkValues(&v, "type", f.Types, PenaltyTypes)
	checkValues(&v, "status", f.Statuses, PenaltyStatuses)
	checkValues(&v, "severity", f.Severities, PenaltySeverities)
	return v.Err()
}

// summarizePenalties builds the list's totals and summary from the counts
// per currency; the summary's total is that of the main currency.
func summarizePenalties(counts []penaltyCounts, company string) PenaltyList {
	out := PenaltyList{Totals: []PenaltyTotal{}, Penalties: []Penalty{}}
	var sums []Summary
	for _, pc := range counts {
		out.Total += pc.total.rows
		out.Totals = append(out.Totals, pc.total)
		sums = append(sums, Summary{Currency: pc.total.Currency, rows: pc.total.rows})
		out.Summary.add(pc.counts)
	}
	out.Summary.Currency = mainCurrency(sums, company)
	for _, t := range out.Totals {
		if t.Currency == out.Summary.Currency {
			out.Summary.TotalPenalties = t.TotalPenalties
		}
	}
	return out
}
