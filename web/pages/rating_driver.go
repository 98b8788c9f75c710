package pages

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// driverRating is a driver's rating of a month: the total and percentile,
// each component as a bar, the history chart with its trend; for the driver
// itself, what would raise the score most; for HR and admins, the
// recalculate button.
func (p *Pages) driverRating(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	id := web.PathID(c, "id")
	current := rating.PeriodOf(pr.Today())
	month := current
	months := 12
	var from, to civil.Date
	sheet, err := p.svc.Rating.Sheet(ctx, pr, id, func(req *rating.SheetRequest) error {
		if raw := strings.TrimSpace(c.QueryParam("period")); raw != "" {
			var err error
			if month, err = rating.ParsePeriod(raw); err != nil {
				return apperr.Invalid("period", "msg.rating_read.period_month")
			}
		}
		if c.QueryParam("months") == "24" {
			months = 24
		}
		from, to = month.First().AddMonths(-(months - 1)), month.Last()
		// The driver itself is told what would raise this month's score.
		self := pr.DriverID != nil && *pr.DriverID == id
		*req = rating.SheetRequest{Month: month, From: from, To: to, Months: months, Inputs: self && month == current}
		return nil
	})
	if err != nil {
		return err
	}
	r, hist := sheet.Rating, sheet.History
	comps, err := r.Components.Views()
	if err != nil {
		return err
	}
	drv, err := p.svc.Drivers.Get(ctx, pr, auth.DriversRead, id)
	if err != nil {
		return err
	}
	self := pr.DriverID != nil && *pr.DriverID == drv.ID
	base := ratingURL(drv.ID)
	d := views.DriverRatingData{
		Driver: views.DriverRef{URL: driverURL(drv.ID), Name: fullName(drv), Number: drv.InternalNumber},
		Self:   self, Month: month.String(), MonthLabel: monthLabel(lang, month), Max: current.String(),
		Current: month == current, Score: scoreText(lang, numberDecimal(r.TotalScore)), ScoreValue: r.TotalScore.String(),
		Percentile: r.RankPercentile, Months: months, CSRF: csrfToken(c), URL: base,
		MonthsURL:  base + "?period=" + month.String() + "&months=" + strconv.Itoa(36-months),
		HistoryAPI: "/api/v0/drivers/" + drv.ID.String() + "/rating/history?from=" + from.String() + "&to=" + to.String() + "&per_page=" + strconv.Itoa(months),
	}
	if r.ScoreChange != nil {
		ch := numberDecimal(*r.ScoreChange)
		d.HasChange, d.Change, d.ChangeSign = true, changeText(lang, ch), ch.Sign()
	}
	if shows(pr, auth.RatingManage) {
		d.RecalculateURL = base + "/recalculate"
	}
	if month.Prev().First().Year() > 0 {
		d.PrevURL = base + "?period=" + month.Prev().String()
	}
	if month.Next() != current.Next() && !month.Next().After(current) {
		d.NextURL = base + "?period=" + month.Next().String()
	}
	sumWeight := applicableWeight(comps)
	for _, m := range sortedMetrics(comps) {
		cv := comps[m]
		sc, w, con := numberDecimal(cv.Score), numberDecimal(cv.Weight), numberDecimal(cv.Contribution)
		b := views.ComponentBar{
			Metric: m, Score: scoreText(lang, sc), ScoreValue: sc.StringFixed(2), Weight: scoreText(lang, w),
			Contribution: scoreText(lang, con), Details: componentDetails(lang, cv), Applicable: cv.Applicable,
			Percent: sc.InexactFloat64(),
		}
		if cv.Applicable && sumWeight.IsPositive() {
			// The points the component adds to the total, of the 100.
			b.Share = scoreText(lang, con.Mul(decimal.NewFromInt(100)).Div(sumWeight))
		}
		d.Components = append(d.Components, b)
	}
	d.Chart = historyChart(lang, hist, month, months)
	if self && month == current {
		d.Advice = advice(ctx, comps, sheet.Inputs, drv)
	}
	title := "rating.title"
	if self {
		title = "rating.mine"
	}
	return p.render(c, http.StatusOK, title, views.DriverRating(d))
}

// historyChart lays out the monthly scores of the window (oldest first)
// and the least-squares trend line through them.
func historyChart(lang i18n.Lang, h rating.History, month rating.Period, months int) views.LineChart {
	ch := views.LineChart{Months: months, Trend: h.Summary.Trend}
	first := month.First().AddMonths(-(months - 1))
	start := rating.PeriodOf(first)
	for i := 0; i < months; i++ {
		p := rating.PeriodOf(first.AddMonths(i))
		ch.Ticks = append(ch.Ticks, views.ChartTick{Index: i, Label: shortMonth(p), Show: months <= 12 || i%3 == 0 || i == months-1})
	}
	var pts []rating.TrendPoint
	items := slices.Clone(h.Items)
	slices.Reverse(items) // oldest first
	for _, it := range items {
		sc := numberDecimal(it.TotalScore)
		f := sc.InexactFloat64()
		pt := views.ChartPoint{Index: it.RatingPeriod.Index() - start.Index(), Period: it.RatingPeriod.String(),
			Label: monthLabel(lang, it.RatingPeriod), Score: it.TotalScore.String(), ScoreText: scoreText(lang, sc), Value: f,
			Percentile: it.RankPercentile}
		if it.ScoreChange != nil {
			pt.Change = changeText(lang, numberDecimal(*it.ScoreChange))
		}
		ch.Points = append(ch.Points, pt)
		pts = append(pts, rating.TrendPoint{Period: it.RatingPeriod, Score: f})
	}
	if len(pts) >= 2 {
		slope := rating.Slope(pts)
		var sx, sy float64
		for _, p := range pts {
			sx += float64(p.Period.Index() - start.Index())
			sy += p.Score
		}
		n := float64(len(pts))
		intercept := sy/n - slope*sx/n
		x0, x1 := float64(ch.Points[0].Index), float64(ch.Points[len(ch.Points)-1].Index)
		ch.HasTrend = true
		ch.TrendFrom, ch.TrendTo = [2]float64{x0, intercept + slope*x0}, [2]float64{x1, intercept + slope*x1}
		ch.Slope = strings.Replace(strconv.FormatFloat(slope, 'f', 2, 64), ".", decimalSep(lang), 1)
	}
	return ch
}

func decimalSep(lang i18n.Lang) string {
	if lang == i18n.EN {
		return "."
	}
	return ","
}

// shortMonth is "11/26".
func shortMonth(p rating.Period) string {
	return strconv.Itoa(int(p.First().Month())) + "/" + strconv.Itoa(p.First().Year()%100)
}

// applicableWeight is the sum of the weights of the applicable components:
// the 100 that a component's share of the total and its missed points are
// counted against.
func applicableWeight(comps map[string]rating.ComponentView) decimal.Decimal {
	sum := decimal.Zero
	for _, cv := range comps {
		if cv.Applicable {
			sum = sum.Add(numberDecimal(cv.Weight))
		}
	}
	return sum
}

// advice names what would raise the driver's score most: the two
// applicable components with the biggest weighted gap (the points they
// miss × their weight), each in plain words about the driver's own
// documents, penalties, profile or orders.
func advice(ctx context.Context, comps map[string]rating.ComponentView, in rating.Inputs, drv drivers.Driver) []views.Advice {
	lang := i18n.From(ctx)
	type gap struct {
		metric string
		points decimal.Decimal
	}
	sumWeight := applicableWeight(comps)
	if !sumWeight.IsPositive() {
		return nil
	}
	var gaps []gap
	for _, m := range sortedMetrics(comps) {
		cv := comps[m]
		if !cv.Applicable {
			continue
		}
		missing := decimal.NewFromInt(100).Sub(numberDecimal(cv.Score)).Mul(numberDecimal(cv.Weight)).Div(sumWeight)
		if missing.IsPositive() {
			gaps = append(gaps, gap{m, missing})
		}
	}
	slices.SortStableFunc(gaps, func(a, b gap) int { return b.points.Cmp(a.points) })
	var out []views.Advice
	for _, g := range gaps[:min(2, len(gaps))] {
		a := views.Advice{Metric: g.metric, Points: scoreText(lang, g.points)}
		a.Items = adviceItems(ctx, g.metric, comps[g.metric], in, drv)
		out = append(out, a)
	}
	return out
}

// adviceItems are the concrete things to do for one metric.
func adviceItems(ctx context.Context, metric string, cv rating.ComponentView, in rating.Inputs, drv drivers.Driver) []views.AdviceItem {
	lang := i18n.From(ctx)
	var items []views.AdviceItem
	switch metric {
	case rating.DocumentExpiration:
		byType := map[string]documents.Document{}
		for _, doc := range drv.Documents {
			byType[doc.Type] = doc
		}
		// The rated (required) documents, worst first.
		order := map[string]int{"expired": 0, "no_data": 1, "expiring_soon": 2, "warning": 3}
		docs := slices.Clone(in.Documents)
		slices.SortStableFunc(docs, func(a, b rating.DocState) int { return order[a.Status] - order[b.Status] })
		for _, ds := range docs {
			if _, bad := order[ds.Status]; !bad {
				continue
			}
			doc, ok := byType[ds.Type]
			it := views.AdviceItem{}
			if ok {
				it.URL = documentURL(drv.ID, doc.ID)
			}
			name := views.DocType(ctx, ds.Type)
			if lang == i18n.EN {
				name = lowerFirst(name) // "renew your medical examination"
			}
			// The effective days: a document capped by another (a work
			// permit under an expired residence permit) counts to the
			// cap's date, and renewing the cap is what helps.
			days := 0
			if ok && doc.EffectiveDays != nil {
				days = *doc.EffectiveDays
			}
			switch {
			case ok && doc.LimitedBy != nil && ds.Status != "valid":
				capName := views.DocType(ctx, *doc.LimitedBy)
				if lang == i18n.EN {
					capName = lowerFirst(capName)
				}
				it.Text = lang.T("rating.advice.doc_limited", "document", name, "cap", capName)
				if capDoc, found := byType[*doc.LimitedBy]; found {
					it.URL = documentURL(drv.ID, capDoc.ID)
				}
			case ds.Status == "no_data" || !ok || doc.EffectiveDays == nil:
				it.Text = lang.T("rating.advice.doc_missing", "document", name)
			case days < 0:
				it.Text = lang.T("rating.advice.doc_expired", "document", name, "days", strconv.Itoa(-days))
			case days == 0:
				it.Text = lang.T("rating.advice.doc_expires_today", "document", name)
			default:
				it.Text = lang.T("rating.advice.doc_expires", "document", name, "days", strconv.Itoa(days))
			}
			items = append(items, it)
			if len(items) == 3 {
				break
			}
		}
	case rating.PenaltiesCount, rating.PenaltiesAmount:
		items = append(items, views.AdviceItem{Text: lang.T("rating.advice.penalties", "count", strconv.Itoa(in.Penalties)),
			URL: penaltiesURL(drv.ID)})
	case rating.ProfileCompleteness:
		filled := map[string]bool{}
		for _, f := range in.FilledFields {
			filled[f] = true
		}
		var names []string
		for _, f := range rating.ProfileFields {
			if !filled[f] {
				names = append(names, lang.T("driver.field."+f))
			}
		}
		items = append(items, views.AdviceItem{Text: lang.T("rating.advice.profile", "fields", strings.Join(names, ", ")),
			URL: driverURL(drv.ID)})
	case rating.DocumentUploadTimeliness:
		items = append(items, views.AdviceItem{Text: lang.T("rating.advice.timeliness")})
	case rating.Activity:
		items = append(items, views.AdviceItem{Text: lang.T("rating.advice.activity", "orders", strconv.Itoa(in.Orders))})
	}
	if len(items) == 0 {
		items = append(items, views.AdviceItem{Text: componentDetails(lang, cv)})
	}
	return items
}

// recalculateRating recomputes the driver's snapshot of the page's month
// (HR, admins) and shows the page again.
func (p *Pages) recalculateRating(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	period, reached := "", false
	res, err := p.svc.Rating.Recalculate(ctx, pr, id, func(in *rating.RecalculateInput) error {
		reached = true // the driver is the caller's to recalculate
		period = strings.TrimSpace(c.FormValue("period"))
		in.Period = period
		return nil
	})
	if err != nil && !reached {
		return err // the role, the driver: the error page, not a refusal in the page
	}
	back := ratingURL(id)
	if period != "" {
		back += "?period=" + period
	}
	if err != nil {
		r, ok := refusalOf(i18n.From(ctx), err, noFile)
		if !ok && !r.caller {
			return err
		}
		p.flash(c, views.FlashError, "rating.recalculate.refused", "reason", r.text())
		return p.redirect(c, ratingURL(id))
	}
	p.flash(c, views.FlashSuccess, "rating.recalculated", "score", scoreText(i18n.From(ctx), numberDecimal(res.TotalScore)))
	return p.redirect(c, back)
}

// lowerFirst lowers a name's first letter unless it starts an
// abbreviation ("ADR certificate", "A1 certificate").
func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
