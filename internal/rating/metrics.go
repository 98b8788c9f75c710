// Package rating computes the monthly driver rating of docs/rating.md: six
// configurable metrics per company, a snapshot per driver and month with its
// components, the rank percentile within the company, the history with its
// trend, and the company ranking.
//
// A company's month is rated set-based in one transaction: one query gathers
// every rated driver's inputs, the formulas below (pure Go, unit-tested at
// their edges) score them, and a few statements write every snapshot and
// component and refresh the month's percentiles.
package rating

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// The six metric names, in display order.
const (
	DocumentExpiration       = "document_expiration"
	PenaltiesCount           = "penalties_count"
	PenaltiesAmount          = "penalties_amount"
	ProfileCompleteness      = "profile_completeness"
	DocumentUploadTimeliness = "document_upload_timeliness"
	Activity                 = "activity"
)

// Metrics lists the metric names in display order.
var Metrics = []string{DocumentExpiration, PenaltiesCount, PenaltiesAmount, ProfileCompleteness, DocumentUploadTimeliness, Activity}

// ProfileFields is the fixed list of 20 driver fields profile_completeness
// counts (docs/rating.md): every field of the driver record a person enters,
// except fire_date and flags. A text field counts when it is not blank;
// contract_to also counts as filled when contract_indefinite is true.
var ProfileFields = []string{
	"first_name", "last_name", "middle_name", "birth_date", "citizenship",
	"rodne_cislo", "email", "phone", "registration_address", "residence_address",
	"office_id", "status", "hire_date", "contract_from", "contract_to",
	"work_location", "bank_country", "bank_account", "iban", "swift",
}

// Document statuses and their points in document_expiration.
var documentPoints = map[string]int64{"valid": 100, "warning": 50, "expiring_soon": 25, "expired": 0, "no_data": 0}

// DocState is one required document of a driver as of the period's last day.
type DocState struct {
	Type   string
	Status string // valid, warning, expiring_soon, expired, no_data
	// DaysLeft is valid_until minus the period's last day; nil when the
	// document has no file or no expiry.
	DaysLeft *int
}

// Inputs are what the formulas need of one driver for one month; the
// gathering query fills them for every rated driver at once.
type Inputs struct {
	DriverID uuid.UUID
	// Documents are the company's required document types, as of the
	// period's last day.
	Documents []DocState
	// Penalties and PenaltiesAmount count the penalties with an incident in
	// the period, cancelled and deleted ones left out.
	Penalties       int
	PenaltiesAmount decimal.Decimal
	// FilledFields are the names in ProfileFields that are filled.
	FilledFields []string
	// RenewalDelays has, for every file uploaded in the period that renewed
	// an expired or expiring document, the days from the previous
	// valid_until to the upload (negative: renewed before expiry).
	RenewalDelays []int
	// Orders assigned to the driver with a date in the period (not
	// cancelled); CompanyUsesOrders is false when the company has none at
	// all in the period.
	Orders            int
	CompanyUsesOrders bool
}

// Component is one metric's result for a driver.
type Component struct {
	Metric string
	// Raw is the measured value before normalisation (nil: nothing measured).
	Raw *decimal.Decimal
	// Score is 0–100, rounded to 2 decimals.
	Score decimal.Decimal
	// Applicable is false for activity when the company has no orders in the
	// period: the metric then stays out of the total like a disabled one.
	Applicable bool
	Weight     decimal.Decimal
	// Contribution is Score × Weight / 100 (0 when not applicable).
	Contribution decimal.Decimal
	// Details is the English sentence of the API's details; Explanation
	// says the same as a code and parameters, which the pages word in the
	// reader's language.
	Details     string
	Explanation Explanation
	Meta        map[string]any
}

// Explanation is a component's details as data: Code names the sentence
// (metric.case, "penalties_amount.total"), Params its values as text in
// fixed forms: counts and decimals as "12" or "1000.50", months "YYYY-MM",
// days "YYYY-MM-DD", currencies ISO codes, and missing_fields the codes of
// ProfileFields joined by commas (docs/rating.md, "Details").
type Explanation struct {
	Code   string            `json:"code"`
	Params map[string]string `json:"params"`
}

func explain(code string, kv ...string) Explanation {
	p := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	return Explanation{Code: code, Params: p}
}

// Result is a driver's rating for a month.
type Result struct {
	DriverID   uuid.UUID
	Total      decimal.Decimal
	Components []Component // enabled metrics only, in display order
}

var (
	hundred = decimal.NewFromInt(100)
	one     = decimal.NewFromInt(1)
	zero    = decimal.Zero
)

// Score rates one driver's inputs with the company's configuration: every
// enabled metric gives a component, and the total is the sum of the
// contributions of the enabled, applicable metrics × 100 / the sum of their
// weights, rounded to 2 decimals (0 when those weights sum to 0).
func Score(in Inputs, cfg Config, period Period, currency string) Result {
	res := Result{DriverID: in.DriverID, Components: []Component{}}
	sumContrib, sumWeight := zero, zero
	for _, m := range cfg.Metrics {
		if !m.IsEnabled {
			continue
		}
		c := scoreMetric(m, in, period, currency)
		c.Metric = m.MetricName
		c.Score = c.Score.Round(2)
		c.Weight = m.Weight
		if c.Applicable {
			c.Contribution = c.Score.Mul(c.Weight).Div(hundred).Round(4)
			sumContrib = sumContrib.Add(c.Contribution)
			sumWeight = sumWeight.Add(c.Weight)
		} else {
			c.Contribution = zero
		}
		res.Components = append(res.Components, c)
	}
	res.Total = zero
	if sumWeight.IsPositive() {
		res.Total = sumContrib.Mul(hundred).Div(sumWeight).Round(2)
	}
	return res
}

func scoreMetric(m MetricConfig, in Inputs, period Period, currency string) Component {
	th := m.Threshold()
	switch m.MetricName {
	case DocumentExpiration:
		return documentExpiration(in.Documents, th, period)
	case PenaltiesCount:
		return penaltiesCount(in.Penalties, th, period)
	case PenaltiesAmount:
		return penaltiesAmount(in.PenaltiesAmount, th, period, currency)
	case ProfileCompleteness:
		return profileCompleteness(in.FilledFields, th)
	case DocumentUploadTimeliness:
		return uploadTimeliness(in.RenewalDelays, th, period)
	case Activity:
		return activity(in.Orders, in.CompanyUsesOrders, th, period)
	}
	return Component{Applicable: false, Details: "Unknown metric.", Explanation: explain("unknown"), Meta: map[string]any{}}
}

// documentExpiration: the mean over the required documents of 100 (valid),
// 50 (warning), 25 (expiring_soon), 0 (expired, no_data), as of the
// period's last day; 100 when no document type is required. warningDays
// only shapes the details ("2 of 5 required documents expire within 30
// days"): the statuses are those of docs/drivers-and-documents.md, the same the documents list
// shows.
func documentExpiration(docs []DocState, warningDays decimal.Decimal, period Period) Component {
	asOf := period.Last().String()
	if len(docs) == 0 {
		s := hundred
		return Component{Raw: &s, Score: s, Applicable: true,
			Details: "No document types are required.", Explanation: explain("document_expiration.none_required", "as_of", asOf), Meta: map[string]any{"required": 0, "as_of": asOf}}
	}
	counts := map[string]int{}
	var points int64
	expiring, bad := 0, 0
	w := int(warningDays.IntPart())
	for _, d := range docs {
		counts[d.Status]++
		points += documentPoints[d.Status]
		switch {
		case d.Status == "expired" || d.Status == "no_data":
			bad++
		case d.DaysLeft != nil && *d.DaysLeft >= 0 && *d.DaysLeft <= w:
			expiring++
		}
	}
	mean := decimal.NewFromInt(points).Div(decimal.NewFromInt(int64(len(docs))))
	raw := mean.Round(4)
	return Component{
		Raw: &raw, Score: mean, Applicable: true,
		Details: fmt.Sprintf("%d of %d required documents expire within %d days, %d expired or missing (as of %s).",
			expiring, len(docs), w, bad, asOf),
		Explanation: explain("document_expiration.summary", "expiring", strconv.Itoa(expiring), "required", strconv.Itoa(len(docs)),
			"warning_days", strconv.Itoa(w), "bad", strconv.Itoa(bad), "as_of", asOf),
		Meta: map[string]any{
			"required": len(docs), "as_of": asOf, "expiring_within_warning_days": expiring,
			"valid": counts["valid"], "warning": counts["warning"], "expiring_soon": counts["expiring_soon"],
			"expired": counts["expired"], "no_data": counts["no_data"],
		},
	}
}

// penaltiesCount: 100 × max(0, 1 − n / max_count).
func penaltiesCount(n int, maxCount decimal.Decimal, period Period) Component {
	raw := decimal.NewFromInt(int64(n))
	score := hundred.Mul(decimal.Max(zero, one.Sub(raw.Div(maxCount))))
	details := fmt.Sprintf("No penalties with an incident in %s (limit %s).", period, maxCount)
	ex := explain("penalties_count.none", "period", period.String(), "max_count", maxCount.String())
	if n > 0 {
		details = fmt.Sprintf("%s with an incident in %s (limit %s).", plural(n, "penalty", "penalties"), period, maxCount)
		ex = explain("penalties_count.some", "count", strconv.Itoa(n), "period", period.String(), "max_count", maxCount.String())
	}
	return Component{Raw: &raw, Score: score, Applicable: true, Details: details, Explanation: ex,
		Meta: map[string]any{"penalties": n, "max_count": num(maxCount)}}
}

// penaltiesAmount: 100 × max(0, 1 − sum / max_amount) over the same
// penalties as penaltiesCount.
func penaltiesAmount(sum, maxAmount decimal.Decimal, period Period, currency string) Component {
	raw := sum
	score := hundred.Mul(decimal.Max(zero, one.Sub(sum.Div(maxAmount))))
	return Component{Raw: &raw, Score: score, Applicable: true,
		Details: fmt.Sprintf("Penalties with an incident in %s total %s %s (limit %s %s).",
			period, sum.StringFixed(2), currency, maxAmount.StringFixed(2), currency),
		Explanation: explain("penalties_amount.total", "period", period.String(), "amount", sum.StringFixed(2),
			"max_amount", maxAmount.StringFixed(2), "currency", currency),
		Meta: map[string]any{"amount": json.Number(sum.StringFixed(2)), "max_amount": num(maxAmount), "currency": currency}}
}

// profileCompleteness: 100 × filled / required_fields, at most 100 (with
// fewer required fields than the 20 of the list, that many filled already
// give the full score).
func profileCompleteness(filled []string, required decimal.Decimal) Component {
	have := map[string]bool{}
	for _, f := range filled {
		have[f] = true
	}
	n := 0
	missing := []string{}
	for _, f := range ProfileFields {
		if have[f] {
			n++
		} else {
			missing = append(missing, f)
		}
	}
	raw := decimal.NewFromInt(int64(n))
	score := hundred.Mul(decimal.Min(one, raw.Div(required)))
	details := fmt.Sprintf("%d of %d profile fields filled", n, len(ProfileFields))
	ex := explain("profile_completeness.filled", "filled", strconv.Itoa(n), "fields", strconv.Itoa(len(ProfileFields)),
		"required", required.String(), "missing_fields", strings.Join(missing, ","))
	if !required.Equal(decimal.NewFromInt(int64(len(ProfileFields)))) {
		details += fmt.Sprintf(" (%s needed for the full score)", required)
	}
	if len(missing) > 0 {
		details += "; missing: " + strings.Join(missing, ", ")
	}
	return Component{Raw: &raw, Score: score, Applicable: true, Details: details + ".", Explanation: ex,
		Meta: map[string]any{"filled": n, "fields": len(ProfileFields), "missing_fields": missing}}
}

// uploadTimeliness: for the renewals uploaded in the period, the mean delay
// in days after the previous valid_until (a renewal before expiry counts as
// 0 days); 100 × max(0, 1 − mean_delay / (4 × avg_days)); 100 when nothing
// needed renewal.
func uploadTimeliness(delays []int, avgDays decimal.Decimal, period Period) Component {
	if len(delays) == 0 {
		return Component{Score: hundred, Applicable: true,
			Details:     fmt.Sprintf("No document needed renewal in %s.", period),
			Explanation: explain("document_upload_timeliness.none", "period", period.String()),
			Meta:        map[string]any{"renewals": 0, "avg_days": num(avgDays)}}
	}
	total := 0
	for _, d := range delays {
		total += max(0, d)
	}
	mean := decimal.NewFromInt(int64(total)).Div(decimal.NewFromInt(int64(len(delays))))
	limit := avgDays.Mul(decimal.NewFromInt(4))
	score := hundred.Mul(decimal.Max(zero, one.Sub(mean.Div(limit))))
	raw := mean.Round(4)
	return Component{Raw: &raw, Score: score, Applicable: true,
		Details: fmt.Sprintf("%s in %s, on average %s days after the previous expiry (0 points at %s days).",
			plural(len(delays), "renewal", "renewals"), period, mean.Round(1).String(), limit),
		Explanation: explain("document_upload_timeliness.mean", "renewals", strconv.Itoa(len(delays)), "period", period.String(),
			"mean_days", mean.Round(1).String(), "limit_days", limit.String()),
		Meta: map[string]any{"renewals": len(delays), "mean_delay_days": num(raw), "avg_days": num(avgDays)}}
}

// activity: 100 × min(1, orders / min_orders_per_month); not applicable when
// the company has no orders in the period.
func activity(orders int, companyUsesOrders bool, minOrders decimal.Decimal, period Period) Component {
	raw := decimal.NewFromInt(int64(orders))
	if !companyUsesOrders {
		return Component{Raw: &raw, Score: zero, Applicable: false,
			Details:     fmt.Sprintf("Not applicable: the company has no orders in %s, so activity is left out of the total.", period),
			Explanation: explain("activity.not_applicable", "period", period.String()),
			Meta:        map[string]any{"orders": orders, "min_orders_per_month": num(minOrders)}}
	}
	score := hundred.Mul(decimal.Min(one, raw.Div(minOrders)))
	return Component{Raw: &raw, Score: score, Applicable: true,
		Details: fmt.Sprintf("%s of %s expected in %s.", plural(orders, "order", "orders"), minOrders, period),
		Explanation: explain("activity.orders", "orders", strconv.Itoa(orders), "min_orders", minOrders.String(),
			"period", period.String()),
		Meta: map[string]any{"orders": orders, "min_orders_per_month": num(minOrders)}}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Trend values of the history summary.
const (
	TrendImproving        = "improving"
	TrendDeclining        = "declining"
	TrendStable           = "stable"
	TrendInsufficientData = "insufficient_data"
)

// TrendPoint is one month of the history.
type TrendPoint struct {
	Period Period
	Score  float64
}

// Trend classifies the slope of the least-squares line through the scores
// (x = months, so a gap of a month counts): improving when it rises by 1
// point per month or more, declining when it falls by 1 or more, stable in
// between; insufficient_data with fewer than 2 periods.
func Trend(points []TrendPoint) string {
	if len(points) < 2 {
		return TrendInsufficientData
	}
	slope := Slope(points)
	switch {
	case math.Abs(slope) < 1:
		return TrendStable
	case slope > 0:
		return TrendImproving
	}
	return TrendDeclining
}

// Slope is the least-squares slope of score over month, in points per month.
func Slope(points []TrendPoint) float64 {
	n := float64(len(points))
	var sx, sy float64
	for _, p := range points {
		sx += float64(p.Period.Index())
		sy += p.Score
	}
	mx, my := sx/n, sy/n
	var num, den float64
	for _, p := range points {
		dx := float64(p.Period.Index()) - mx
		num += dx * (p.Score - my)
		den += dx * dx
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// num writes a decimal as a JSON number (shopspring quotes it by default).
func num(d decimal.Decimal) json.Number { return json.Number(d.String()) }
