package finance

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Aggregate types.
const (
	AggMTD      = "mtd"
	AggYTD      = "ytd"
	AggLifetime = "lifetime"
)

// AggregateTypes lists them in response order.
var AggregateTypes = []string{AggMTD, AggYTD, AggLifetime}

// Aggregate is a driver's money over a window ending at the reference date,
// in one currency, with the list's summary rules (every status but
// cancelled).
type Aggregate struct {
	AggType            string         `json:"agg_type"`
	ReferenceDate      civil.Date     `json:"reference_date"`
	TotalEarnings      money.Amount   `json:"total_earnings"`
	TotalDeductions    money.Amount   `json:"total_deductions"`
	TotalPenalties     money.Amount   `json:"total_penalties"`
	NetAmount          money.Amount   `json:"net_amount"`
	PenaltiesCount     int            `json:"penalties_count"`
	AvgMonthlyEarnings money.Amount   `json:"avg_monthly_earnings"`
	Currency           string         `json:"currency"`
	Metadata           map[string]any `json:"metadata"`
	CalculatedAt       time.Time      `json:"calculated_at"`
}

// MonthAmount is a month (YYYY-MM) with its net amount.
type MonthAmount struct {
	Month  string       `json:"month"`
	Amount money.Amount `json:"amount"`
}

// AggregateQuery selects the aggregates.
type AggregateQuery struct {
	Types         []string    // default: all three
	ReferenceDate *civil.Date // default: today in the company's time zone
	Currency      string      // default: the driver's main currency
}

// Aggregates computes the requested aggregates from the transactions, in
// SQL, on every request (nothing is cached, so they always agree with the
// list):
//   - mtd: from the first of the reference month, ytd: from 1 January,
//     lifetime: everything, each up to and including reference_date;
//   - penalties_count: penalties (not cancelled) with incident_date in the
//     window;
//   - avg_monthly_earnings: mtd earnings; ytd earnings / months_worked;
//     lifetime earnings / employment_months (rounded half away from zero);
//   - ytd metadata: months_worked (months of the year up to the reference
//     date with a positive amount), highest_month and lowest_month by net
//     amount among the months with transactions (ties: the earlier month);
//   - lifetime metadata: first_transaction (any currency) and
//     employment_months, the whole months from the first transaction, or
//     hire_date if earlier, to the reference date, at least 1.
//
// read fills the query once the driver is checked (a query that does not
// parse is its error).
func (s *Service) Aggregates(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*AggregateQuery) error) (map[string]Aggregate, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	d, err := loadDriver(ctx, s.db, p, auth.FinanceRead, driverID)
	if err != nil {
		return nil, err
	}
	q, err := readOnce(read)()
	if err != nil {
		return nil, err
	}
	q, err = q.check()
	if err != nil {
		return nil, err
	}
	ref := p.Today()
	if q.ReferenceDate != nil {
		ref = *q.ReferenceDate
	}
	if q.Currency == "" {
		if q.Currency, err = s.driverCurrency(ctx, p, d, ref); err != nil {
			return nil, err
		}
	}
	out, err := windowTotals(ctx, s.db, d, q.Currency, ref, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	m, err := monthFigures(ctx, s.db, d, q.Currency, ref)
	if err != nil {
		return nil, err
	}
	m.fill(out)
	for k := range out {
		if !contains(q.Types, k) {
			delete(out, k)
		}
	}
	return out, nil
}

// check validates the query and fills in its default types.
func (q AggregateQuery) check() (AggregateQuery, error) {
	var v apperr.Validation
	if len(q.Types) == 1 && q.Types[0] == "all" {
		q.Types = nil // the spec's "default all", spelled out
	}
	checkValues(&v, "type", q.Types, AggregateTypes)
	if q.Currency != "" {
		c, ok := money.NormalizeCurrency(q.Currency)
		if !ok {
			v.Add("currency", "msg.common.currency", "value", q.Currency)
		}
		q.Currency = c
	}
	if err := v.Err(); err != nil {
		return q, err
	}
	if len(q.Types) == 0 {
		q.Types = AggregateTypes
	}
	return q, nil
}

// months are the figures by month behind the ytd and lifetime metadata.
type months struct {
	worked, employment int
	high, low          *MonthAmount
	firstTx            *civil.Date
}

// fill adds the metadata and the monthly averages to the ytd and lifetime
// aggregates.
func (m months) fill(out map[string]Aggregate) {
	ytd := out[AggYTD]
	ytd.Metadata = map[string]any{"months_worked": m.worked, "highest_month": m.high, "lowest_month": m.low}
	ytd.AvgMonthlyEarnings = perMonth(ytd.TotalEarnings, m.worked)
	out[AggYTD] = ytd
	life := out[AggLifetime]
	life.Metadata = map[string]any{"employment_months": m.employment, "first_transaction": m.firstTx}
	life.AvgMonthlyEarnings = perMonth(life.TotalEarnings, m.employment)
	out[AggLifetime] = life
}

// driverCurrency is the driver's main currency as of ref: the company's
// when the driver has transactions in it, else the one with the most.
func (s *Service) driverCurrency(ctx context.Context, p auth.Principal, d loadedDriver, ref civil.Date) (string, error) {
	sums, err := currencyCounts(ctx, s.db, d, ref)
	if err != nil {
		return "", err
	}
	return mainCurrency(sums, companyCurrency(p)), nil
}

func monthAmount(month *string, net *money.Amount) *MonthAmount {
	if month == nil || net == nil {
		return nil
	}
	return &MonthAmount{Month: *month, Amount: *net}
}

// perMonth divides earnings by a number of months, rounded half away from
// zero to two places; no months means 0.
func perMonth(earnings money.Amount, months int) money.Amount {
	if months <= 0 {
		return money.Zero
	}
	return money.New(earnings.Decimal().DivRound(decimal.NewFromInt(int64(months)), money.Places))
}
