package finance

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/tenants"
)

// world is a company with one driver on a fresh database, and the
// principals of its users, built without HTTP.
type world struct {
	t       *testing.T
	ctx     context.Context
	db      *pgxpool.Pool
	svc     *Service
	company uuid.UUID
	driver  uuid.UUID
	acc     auth.Principal
	hr      auth.Principal
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db := pgtest.New(t)
	w := &world{t: t, ctx: context.Background(), db: db, svc: NewService(db, nil, 0, nil, nil)}
	w.company = fixtures.Company(t, db)
	w.driver = fixtures.Driver(t, db, w.company, fixtures.Email("eva@example.test"))
	w.acc = w.principal(w.company, auth.RoleAccountant, "acc@example.test")
	w.hr = w.principal(w.company, auth.RoleHRManager, "hr@example.test")
	return w
}

// principal resolves a user of the company as a request would.
func (w *world) principal(company uuid.UUID, role auth.Role, email string) auth.Principal {
	w.t.Helper()
	p, err := tenants.NewService(w.db).Principal(w.ctx, auth.Identity{Subject: uuid.NewString(), Email: email,
		CompanyID: company.String(), Role: role})
	if err != nil {
		w.t.Fatalf("principal %s: %v", role, err)
	}
	return p
}

func (w *world) create(typ, amount string, day civil.Date) Transaction {
	w.t.Helper()
	d := day.String()
	tr, err := w.svc.CreateTransaction(w.ctx, w.acc, w.driver, Given(TransactionInput{
		TransactionType: &typ, Amount: money.TextInput(amount), TransactionDate: &d}))
	if err != nil {
		w.t.Fatalf("create %s %s: %v", typ, amount, err)
	}
	return tr
}

func (w *world) move(id uuid.UUID, to string) (Transaction, error) {
	return w.svc.UpdateTransaction(w.ctx, w.acc, w.driver, id, Given(TransactionInput{Status: &to}))
}

func (w *world) period(id uuid.UUID) Period {
	w.t.Helper()
	per, err := getPeriod(w.ctx, w.db, w.company, w.driver, id, false)
	if err != nil {
		w.t.Fatal(err)
	}
	return per
}

func (w *world) auditCount(entity uuid.UUID, action string) int {
	w.t.Helper()
	var n int
	if err := w.db.QueryRow(w.ctx, `SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action = $2`, entity, action).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

func wantKind(t *testing.T, what string, err error, kind apperr.Kind) {
	t.Helper()
	if apperr.KindOf(err) != kind || err == nil {
		t.Fatalf("%s: got %v (kind %v), want kind %v", what, err, apperr.KindOf(err), kind)
	}
}

func amt(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

func wantTotals(t *testing.T, what string, per Period, earnings, deductions string, count int) {
	t.Helper()
	if !per.TotalEarnings.Equal(amt(earnings)) || !per.TotalDeductions.Equal(amt(deductions)) ||
		!per.NetAmount.Equal(amt(earnings).Sub(amt(deductions))) || per.TransactionsCount != count {
		t.Fatalf("%s: totals %s/%s/%s count %d, want %s/%s count %d", what, per.TotalEarnings, per.TotalDeductions,
			per.NetAmount, per.TransactionsCount, earnings, deductions, count)
	}
}

// TestTransactionMovesAndTotals: the status workflow moves a transaction
// pending → approved → paid and cancels a pending one; any other move is
// 409 and changes nothing; the period's totals follow every change (sum of
// positives, absolute sum of negatives, cancelled excluded).
func TestTransactionMovesAndTotals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	day := w.acc.Today().MonthStart().AddMonths(-1).AddDays(3)
	bonus := w.create("bonus", "1000.50", day)
	fuel := w.create("deduction", "-200.25", day)
	extra := w.create("bonus", "99", day)
	if bonus.PeriodID == nil || fuel.PeriodID == nil || *bonus.PeriodID != *fuel.PeriodID {
		t.Fatalf("transactions of one month in different periods: %v %v", bonus.PeriodID, fuel.PeriodID)
	}
	pid := *bonus.PeriodID
	wantTotals(t, "three created", w.period(pid), "1099.50", "200.25", 3)

	for _, step := range []struct {
		id uuid.UUID
		to string
	}{{bonus.ID, StatusApproved}, {bonus.ID, StatusPaid}, {extra.ID, StatusCancelled}} {
		got, err := w.move(step.id, step.to)
		if err != nil || got.Status != step.to {
			t.Fatalf("move to %s: %v %v", step.to, got.Status, err)
		}
		if step.to == StatusPaid && (got.PaymentDate == nil || got.PaymentDate.String() != w.acc.Today().String() || got.PaidBy == nil) {
			t.Fatalf("paid without payment date or payer: %+v", got)
		}
	}
	wantTotals(t, "one cancelled", w.period(pid), "1000.50", "200.25", 2)

	for _, c := range []struct {
		name string
		id   uuid.UUID
		to   string
	}{
		{"paid back to pending", bonus.ID, StatusPending},
		{"paid cancelled", bonus.ID, StatusCancelled},
		{"cancelled approved", extra.ID, StatusApproved},
		{"pending paid", fuel.ID, StatusPaid},
		{"pending disputed", fuel.ID, StatusDisputed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.move(c.id, c.to)
			wantKind(t, c.name, err, apperr.KindConflict)
		})
	}
	got, err := w.svc.GetTransaction(w.ctx, w.acc, w.driver, fuel.ID)
	if err != nil || got.Status != StatusPending {
		t.Fatalf("refused moves changed the record: %v %v", got.Status, err)
	}
	// An approved transaction keeps its amount (409).
	if _, err := w.move(fuel.ID, StatusApproved); err != nil {
		t.Fatal(err)
	}
	_, err = w.svc.UpdateTransaction(w.ctx, w.acc, w.driver, fuel.ID,
		Given(TransactionInput{Amount: money.TextInput("-1")}))
	wantKind(t, "approved amount change", err, apperr.KindConflict)
	wantTotals(t, "after refusals", w.period(pid), "1000.50", "200.25", 2)
	if n := w.auditCount(bonus.ID, "updated"); n != 2 {
		t.Fatalf("%d audit rows for the two moves of the bonus", n)
	}
}

// TestPeriodCloseAndReopen: a period closes only after its last day (409),
// not while it holds pending transactions unless forced (409 naming them),
// a forced close is audited with the pending ids; a reopen needs a reason
// (422) and a paid period never reopens (409).
func TestPeriodCloseAndReopen(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	today := w.acc.Today()
	current := w.create("bonus", "10", today)
	last := w.create("bonus", "500", today.MonthStart().AddMonths(-1))
	older := w.create("bonus", "700", today.MonthStart().AddMonths(-2))
	closeP := func(id uuid.UUID, force bool) (Period, error) {
		return w.svc.ClosePeriod(w.ctx, w.acc, w.driver, id, Given(ClosePeriodInput{Force: force}))
	}

	_, err := closeP(*current.PeriodID, true)
	wantKind(t, "close before the last day", err, apperr.KindConflict)

	_, err = closeP(*last.PeriodID, false)
	wantKind(t, "close with a pending transaction", err, apperr.KindConflict)
	if ids := PendingOf(err); len(ids) != 1 || ids[0] != last.ID {
		t.Fatalf("pending of the refusal %v, want [%s]", ids, last.ID)
	}
	if per := w.period(*last.PeriodID); per.Status != PeriodOpen {
		t.Fatalf("refused close left the period %s", per.Status)
	}

	per, err := closeP(*last.PeriodID, true)
	if err != nil || per.Status != PeriodClosed || per.ClosedAt == nil {
		t.Fatalf("forced close: %+v %v", per, err)
	}
	var force bool
	var pending []string
	if err := w.db.QueryRow(w.ctx, `SELECT (new_values->>'force')::bool, ARRAY(SELECT jsonb_array_elements_text(new_values->'pending_transaction_ids'))
		FROM audit_logs WHERE entity_id = $1 AND action = 'period.closed'`, per.ID).Scan(&force, &pending); err != nil {
		t.Fatal(err)
	}
	if !force || len(pending) != 1 || pending[0] != last.ID.String() {
		t.Fatalf("close audit force=%v pending=%v", force, pending)
	}
	// Nothing dated inside a closed period changes.
	_, err = w.move(last.ID, StatusApproved)
	wantKind(t, "move inside a closed period", err, apperr.KindConflict)
	_, err = closeP(per.ID, true)
	wantKind(t, "close a closed period", err, apperr.KindConflict)

	reopen := func(id uuid.UUID, reason *string) (Period, error) {
		return w.svc.ReopenPeriod(w.ctx, w.acc, w.driver, id, Given(ReopenInput{Reason: reason}))
	}
	blank := "  "
	_, err = reopen(per.ID, nil)
	wantKind(t, "reopen without a reason", err, apperr.KindValidation)
	_, err = reopen(per.ID, &blank)
	wantKind(t, "reopen with a blank reason", err, apperr.KindValidation)
	reason := "late invoice"
	if got, err := reopen(per.ID, &reason); err != nil || got.Status != PeriodOpen {
		t.Fatalf("reopen: %v %v", got.Status, err)
	}
	if w.auditCount(per.ID, "period.reopened") != 1 {
		t.Fatal("reopen not audited")
	}
	_, err = reopen(per.ID, &reason)
	wantKind(t, "reopen an open period", err, apperr.KindConflict)

	// A paid period never reopens.
	if _, err := w.move(older.ID, StatusApproved); err != nil {
		t.Fatal(err)
	}
	if _, err := closeP(*older.PeriodID, false); err != nil {
		t.Fatal(err)
	}
	paid, err := w.svc.PayPeriod(w.ctx, w.acc, w.driver, *older.PeriodID, nil)
	if err != nil || paid.Status != PeriodPaid {
		t.Fatalf("pay: %v %v", paid.Status, err)
	}
	if got, _ := w.svc.GetTransaction(w.ctx, w.acc, w.driver, older.ID); got.Status != StatusPaid {
		t.Fatalf("approved transaction of a paid period is %s", got.Status)
	}
	_, err = reopen(paid.ID, &reason)
	wantKind(t, "reopen a paid period", err, apperr.KindConflict)
}

// TestPenaltyReducedAfterClose: a penalty disputed inside a period that
// then closed, and reduced later, leaves the closed period as it was and
// posts the difference (new − old) as a correction in the open period of
// the resolution day, linked to the penalty and its record.
func TestPenaltyReducedAfterClose(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	today := w.acc.Today()
	incident := today.MonthStart().AddMonths(-1).AddDays(9).String()
	typ, desc, amount := "speeding", "radar", "800"
	pen, err := w.svc.CreatePenalty(w.ctx, w.hr, w.driver, Given(PenaltyInput{PenaltyType: &typ,
		Amount: money.TextInput(amount), IncidentDate: &incident, Description: &desc}))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := getTransaction(w.ctx, w.db, w.company, w.driver, pen.FinanceID, false)
	if err != nil || !rec.Amount.Equal(amt("-800")) || rec.PeriodID == nil {
		t.Fatalf("penalty record %+v %v", rec, err)
	}
	reason := "the sign was hidden"
	if _, err := w.svc.DisputePenalty(w.ctx, w.hr, w.driver, pen.ID,
		Given(DisputeInput{DisputeReason: &reason})); err != nil {
		t.Fatal(err)
	}
	closed, err := w.svc.ClosePeriod(w.ctx, w.acc, w.driver, *rec.PeriodID, Given(ClosePeriodInput{Force: true}))
	if err != nil {
		t.Fatal(err)
	}
	wantTotals(t, "closed period", closed, "0", "800", 1)

	action := "reduce"
	resolved, err := w.svc.ResolvePenalty(w.ctx, w.hr, w.driver, pen.ID,
		Given(ResolveInput{ResolutionAction: &action, NewAmount: money.TextInput("500")}))
	if err != nil || resolved.Status != PenaltyResolved || !resolved.Amount.Equal(amt("500")) {
		t.Fatalf("resolve: %+v %v", resolved, err)
	}
	after := w.period(closed.ID)
	if after.Status != PeriodClosed || !after.TotalDeductions.Equal(closed.TotalDeductions) ||
		!after.TotalEarnings.Equal(closed.TotalEarnings) || after.TransactionsCount != closed.TransactionsCount {
		t.Fatalf("closed period moved: %+v", after)
	}
	if got, _ := getTransaction(w.ctx, w.db, w.company, w.driver, rec.ID, false); !got.Amount.Equal(rec.Amount) {
		t.Fatalf("the closed period's record changed to %s", got.Amount)
	}

	var corrID uuid.UUID
	if err := w.db.QueryRow(w.ctx, `SELECT id FROM finance_transactions WHERE company_id = $1 AND metadata->>'penalty_id' = $2 AND id <> $3`,
		w.company, pen.ID.String(), rec.ID).Scan(&corrID); err != nil {
		t.Fatalf("no correction: %v", err)
	}
	corr, err := getTransaction(w.ctx, w.db, w.company, w.driver, corrID, false)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(corr.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if !corr.Amount.Equal(amt("300")) || corr.TransactionType != TypeAdjustment || corr.Status != StatusPending ||
		corr.TransactionDate.String() != today.String() || meta["penalty_id"] != pen.ID.String() || meta["corrects"] != rec.ID.String() {
		t.Fatalf("correction %+v metadata %v", corr, meta)
	}
	if corr.PeriodID == nil || *corr.PeriodID == closed.ID {
		t.Fatalf("correction in period %v", corr.PeriodID)
	}
	open := w.period(*corr.PeriodID)
	if open.Status != PeriodOpen || open.PeriodStart.String() != today.MonthStart().String() {
		t.Fatalf("correction's period %+v", open)
	}
	wantTotals(t, "open period with the correction", open, "300", "0", 1)
}

// TestBulkCloseAndPayroll: the month-end close reports each driver's
// period (closed, or skipped with its refusal, and a named driver without
// a period); the payroll lists the month's periods with their totals.
func TestBulkCloseAndPayroll(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	month := w.acc.Today().MonthStart().AddMonths(-1)
	ready := w.driver
	w.create("bonus", "1000", month.AddDays(1))
	w.create("deduction", "-150", month.AddDays(2))
	// A second driver with a pending transaction, a third with no period.
	w.driver = fixtures.Driver(t, w.db, w.company)
	busy := w.driver
	tr := w.create("bonus", "50", month.AddDays(5))
	idle := fixtures.Driver(t, w.db, w.company)
	if _, err := w.db.Exec(w.ctx, `UPDATE finance_transactions SET status = 'approved' WHERE driver_id = $1`, ready); err != nil {
		t.Fatal(err)
	}
	named := []string{ready.String(), busy.String(), idle.String()}
	results, err := w.svc.ClosePeriods(w.ctx, w.acc, Given(BulkPeriodsInput{PeriodStart: month.String(), DriverIDs: &named}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[uuid.UUID]BulkResult{}
	for _, r := range results {
		got[r.DriverID] = r
	}
	if len(results) != 3 || got[ready].Result != BulkClosed || got[busy].Result != BulkSkipped ||
		len(PendingOf(got[busy].Err)) != 1 || PendingOf(got[busy].Err)[0] != tr.ID ||
		got[idle].Result != BulkSkipped || got[idle].PeriodID != nil || apperr.KindOf(got[idle].Err) != apperr.KindNotFound {
		t.Fatalf("bulk results %+v", results)
	}

	var buf bytes.Buffer
	if err := w.svc.ExportPayroll(w.ctx, w.acc, Given(month.String()), i18n.EN, func(civil.Date) (export.Writer, error) {
		return export.New(export.CSV, &buf, "payroll")
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\xef\xbb\xbf")))).ReadAll()
	if err != nil {
		t.Fatalf("payroll csv: %v\n%s", err, buf.String())
	}
	if len(rows) != 3 {
		t.Fatalf("payroll rows %q, want a header and two drivers", rows)
	}
	// Columns: number, name, account, IBAN, earnings, deductions,
	// penalties, net, count, status, currency.
	first := rows[1]
	if first[4] != "1000.00" || first[5] != "150.00" || first[7] != "850.00" || first[8] != "2" || first[10] != "CZK" {
		t.Fatalf("payroll row of the ready driver %q", first)
	}
	if second := rows[2]; second[4] != "50.00" || second[8] != "1" {
		t.Fatalf("payroll row of the busy driver %q", second)
	}
}

// TestServiceRefusals: the service itself refuses a role without the
// right (403 Forbidden) and a record of another company (403
// AccessDenied), whatever guard the caller passes on.
func TestServiceRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	day := w.acc.Today().MonthStart().AddMonths(-1).String()
	tr := w.create("bonus", "10", w.acc.Today().MonthStart().AddMonths(-1))
	dispatcher := w.principal(w.company, auth.RoleDispatcher, "disp@example.test")
	other := fixtures.Company(t, w.db)
	stranger := w.principal(other, auth.RoleAdmin, "admin@example.test")
	typ := "bonus"

	for _, c := range []struct {
		name string
		p    auth.Principal
		a    auth.Action
		kind apperr.Kind
	}{
		{"dispatcher writes", dispatcher, auth.FinanceWrite, apperr.KindForbidden},
		{"hr closes periods", w.hr, auth.PeriodsManage, apperr.KindForbidden},
		{"accountant manages penalties", w.acc, auth.PenaltiesManage, apperr.KindForbidden},
		{"another company's admin", stranger, auth.FinanceRead, apperr.KindAccessDenied},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadDriver(w.ctx, w.db, c.p, c.a, w.driver)
			wantKind(t, c.name, err, c.kind)
		})
	}
	// Every service method checks its caller.
	ref := w.driver
	_, err := w.svc.CreateTransaction(w.ctx, dispatcher, ref, Given(TransactionInput{TransactionType: &typ, Amount: money.TextInput("1"), TransactionDate: &day}))
	wantKind(t, "create with a dispatcher", err, apperr.KindForbidden)
	_, err = w.svc.CreateTransaction(w.ctx, stranger, ref, Given(TransactionInput{TransactionType: &typ, Amount: money.TextInput("1"), TransactionDate: &day}))
	wantKind(t, "create for another company", err, apperr.KindAccessDenied)
	_, err = w.svc.UpdateTransaction(w.ctx, stranger, w.driver, tr.ID, Given(TransactionInput{Status: &[]string{StatusApproved}[0]}))
	wantKind(t, "update for another company", err, apperr.KindAccessDenied)
	_, err = w.svc.ClosePeriod(w.ctx, w.hr, w.driver, *tr.PeriodID, Given(ClosePeriodInput{Force: true}))
	wantKind(t, "close by hr", err, apperr.KindForbidden)
	var n int
	if err := w.db.QueryRow(w.ctx, `SELECT count(*) FROM finance_transactions WHERE company_id = $1`, w.company).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d transactions after refusals (%v)", n, err)
	}
	if got := w.period(*tr.PeriodID); got.Status != PeriodOpen {
		t.Fatalf("refused close left %s", got.Status)
	}
	if got, _ := getTransaction(w.ctx, w.db, w.company, w.driver, tr.ID, false); got.Status != StatusPending {
		t.Fatalf("refused update left %s", got.Status)
	}
}
