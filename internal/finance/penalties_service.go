package finance

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// readOnce returns a function that runs read into a fresh input the first
// time it is called and answers the same input and error afterwards: a
// body is read once, after the access check, even when the database
// transaction that checks access is retried.
func readOnce[T any](read func(*T) error) func() (T, error) {
	var (
		in   T
		err  error
		done bool
	)
	return func() (T, error) {
		if !done {
			done = true
			if read != nil {
				err = read(&in)
			}
		}
		return in, err
	}
}

// Given is a read function that fills an input with v: a service's input
// that the caller has in hand (a bulk move's, a seed's) rather than reads
// from a request.
func Given[T any](v T) func(*T) error {
	return func(in *T) error {
		*in = v
		return nil
	}
}

// CreatePenalty records a pending penalty of driver driverID and, in the
// same database transaction, its finance record: type penalty, category
// damage_fine for damage and accident and penalty otherwise, amount =
// −amount, dated on the incident date (so an incident inside a closed or
// paid period is 409). read fills the input once the driver is checked.
func (s *Service) CreatePenalty(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*PenaltyInput) error) (Penalty, error) {
	d, err := loadDriver(ctx, s.db, p, auth.PenaltiesManage, driverID)
	if err != nil {
		return Penalty{}, err
	}
	in, err := readOnce(read)()
	if err != nil {
		return Penalty{}, err
	}
	var v apperr.Validation
	pen := in.apply(Penalty{CompanyID: d.CompanyID, DriverID: d.ID, Status: PenaltyPending, Severity: "minor", Currency: companyCurrency(p),
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
		if err := emitTransaction(ctx, tx, d.CompanyID, d.ID, financeID, webhooks.TransactionCreated); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: id, Action: "penalty.created",
			NewValues: pen.createdValues(financeID)}); err != nil {
			return err
		}
		return emitPenalty(ctx, tx, d.CompanyID, d.ID, id, webhooks.PenaltyCreated)
	})
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// PenaltyForm checks that the caller may record a penalty of driver
// driverID (the create form's page, before anything is read).
func (s *Service) PenaltyForm(ctx context.Context, p auth.Principal, driverID uuid.UUID) error {
	_, err := loadDriver(ctx, s.db, p, auth.PenaltiesManage, driverID)
	return err
}

// GetPenalty reads penalty id of driver driverID, with its evidence files.
func (s *Service) GetPenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Penalty, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	return loadPenalty(ctx, s.db, p, auth.PenaltiesRead, driverID, id)
}

// DisputePenalty files the driver's dispute of a pending penalty: the
// penalty becomes disputed (dispute_reason, dispute_submitted_at; evidence
// is appended), and its finance record disputed. read fills the input once
// the penalty is checked (so 403 and 404 come before 400 and 422).
func (s *Service) DisputePenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, read func(*DisputeInput) error) (Penalty, error) {
	input := readOnce(read)
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, driverID, id, func(cur Penalty) (penaltyMove, error) {
		in, err := input()
		if err != nil {
			return penaltyMove{}, err
		}
		var v apperr.Validation
		reason := requiredText(&v, "dispute_reason", in.DisputeReason, maxPenaltyText)
		evidence := parseEvidence(in.Evidence, &v)
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
// (penalty and finance record cancelled). read fills the input once the
// penalty is checked.
func (s *Service) ResolvePenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, read func(*ResolveInput) error) (Penalty, error) {
	input := readOnce(read)
	return s.movePenalty(ctx, p, auth.PenaltiesManage, driverID, id, func(cur Penalty) (penaltyMove, error) {
		in, err := input()
		if err != nil {
			return penaltyMove{}, err
		}
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
func (s *Service) AcceptPenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Penalty, error) {
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, driverID, id, func(cur Penalty) (penaltyMove, error) {
		if cur.Status != PenaltyPending {
			return penaltyMove{}, apperr.Conflict("msg.penalties.accept_not_pending", "status", penaltyState(cur.Status))
		}
		return penaltyMove{action: "penalty.accepted", status: PenaltyAccepted, financeStatus: StatusPending}, nil
	})
}

// movePenalty runs a penalty operation in one database transaction: the
// penalty is loaded for the caller and locked with its finance record read
// alongside (lockPenalty: role, driver and penalty checks); plan reads and
// validates the input (400, 422) and the penalty's state (409); then the
// record's periods are locked (in the package's lock order) and the
// penalty, the finance record, the period totals and the audit rows are
// written (applyPenaltyMove). The answer is the loaded penalty as the
// writes left it: nothing is read again.
func (s *Service) movePenalty(ctx context.Context, p auth.Principal, a auth.Action, driverID, id uuid.UUID,
	plan func(cur Penalty) (penaltyMove, error)) (Penalty, error) {
	day := p.Today()
	// Set when an attempt found that the move posts a correction: the
	// next attempt locks the period of day with the record's.
	correct := false
	var out Penalty
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := lockPenalty(ctx, tx, p, a, driverID, id)
		if err != nil {
			return err
		}
		m, err := plan(cur.Penalty)
		if err != nil {
			return err
		}
		out, err = applyPenaltyMove(ctx, tx, p, cur, m, day, &correct)
		return err
	})
	if err != nil {
		return Penalty{}, err
	}
	return out, nil
}

// applyPenaltyMove locks the periods of the finance record of the locked
// penalty cur and writes the move with its period totals and audit rows;
// it answers the penalty as the move left it, with its evidence files.
//
// A record inside a closed or paid period stays as it was: only the penalty
// moves (the driver's right to dispute does not end with the period), and a
// move that changes money posts a correction into the driver's open monthly
// period of day (docs/finance.md, "Penalties inside a closed period"). That
// period is locked with the record's, in the package's lock order: an
// attempt that finds it needs one without having locked it sets *correct
// and asks for a retry (errRelock). The record is written only if it has
// not changed since cur was read (errMoved otherwise: the move starts
// over), so it needs no lock of its own before the write.
func applyPenaltyMove(ctx context.Context, tx pgx.Tx, p auth.Principal, cur penaltyWithRecord, m penaltyMove, day civil.Date, correct *bool) (Penalty, error) {
	rec := cur.rec
	var place *slot
	if *correct {
		place = &slot{Date: day, Currency: rec.Currency}
	}
	periods, err := lockPeriods(ctx, tx, rec.CompanyID, rec.DriverID, place, rec.slot())
	if err != nil {
		return Penalty{}, err
	}
	oldValues, newValues := m.auditDiff(cur.Penalty)
	out := cur.Penalty
	if _, closed := LockedBy(periods, rec.TransactionDate, rec.Currency); closed {
		amount := m.correctionAmount(rec)
		if !amount.IsZero() && !*correct {
			*correct = true
			return Penalty{}, errRelock
		}
		if err := movePenaltyRow(ctx, tx, &out, m); err != nil {
			return Penalty{}, err
		}
		if !amount.IsZero() {
			correctionID, err := insertTransaction(ctx, tx, p, cur.correction(rec, amount, day))
			if err != nil {
				return Penalty{}, err
			}
			if err := setCorrection(ctx, tx, &out, correctionID); err != nil {
				return Penalty{}, err
			}
			if err := emitTransaction(ctx, tx, cur.CompanyID, cur.DriverID, correctionID, webhooks.TransactionCreated); err != nil {
				return Penalty{}, err
			}
			oldValues["correction_id"], newValues["correction_id"] = nil, correctionID
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: cur.ID, Action: m.action,
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return Penalty{}, err
		}
		err := emitMovedPenalty(ctx, tx, &out, m.action)
		return out, err
	}
	next := m.record(rec)
	if err := movePenaltyRow(ctx, tx, &out, m); err != nil {
		return Penalty{}, err
	}
	if err := moveRecordRow(ctx, tx, cur.ID, rec, next); err != nil {
		return Penalty{}, err
	}
	out.FinanceStatus = next.Status
	if err := periods.recompute(ctx, tx); err != nil {
		return Penalty{}, err
	}
	entries := []audit.Entry{{EntityType: "penalty", EntityID: cur.ID, Action: m.action, OldValues: oldValues, NewValues: newValues}}
	recOld, recNew := audit.Diff(rec.auditValues(), next.auditValues())
	if len(recNew) > 0 {
		entries = append(entries, audit.Entry{EntityType: "finance_transaction", EntityID: rec.ID, Action: "updated",
			OldValues: recOld, NewValues: recNew})
	}
	if err := audit.RecordAll(ctx, tx, p, entries); err != nil {
		return Penalty{}, err
	}
	if len(recNew) > 0 {
		if err := emitMove(ctx, tx, next, rec.Status); err != nil {
			return Penalty{}, err
		}
	}
	// The actions are the event names: penalty.disputed, .accepted, .resolved.
	err = emitMovedPenalty(ctx, tx, &out, m.action)
	return out, err
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
func (s *Service) ListPenalties(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PenaltyFilter) (PenaltyList, error) {
	d, err := loadDriver(ctx, s.db, p, auth.PenaltiesRead, driverID)
	if err != nil {
		return PenaltyList{}, err
	}
	if err := f.check(); err != nil {
		return PenaltyList{}, err
	}
	counts, page, err := penaltyList(ctx, s.db, d.CompanyID, d.ID, f)
	if err != nil {
		return PenaltyList{}, err
	}
	return newPenaltyList(p, counts, page), nil
}

// ReadPenalties is ListPenalties in one round trip: the driver's lookup,
// the counts, the page and its evidence files go to PostgreSQL together
// (loadDriverWith in access.go; docs/performance.md, "One round trip for a
// guarded read"). A filter that fails validation must answer after the
// driver's 403 and 404: it loads the driver alone first.
func (s *Service) ReadPenalties(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PenaltyFilter) (PenaltyList, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	if err := f.check(); err != nil {
		if _, gerr := loadDriver(ctx, s.db, p, auth.PenaltiesRead, driverID); gerr != nil {
			return PenaltyList{}, gerr
		}
		return PenaltyList{}, err
	}
	var counts []penaltyCounts
	var page []Penalty
	_, err := loadDriverWith(ctx, s.db, p, auth.PenaltiesRead, driverID, func(b *pgx.Batch) {
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
