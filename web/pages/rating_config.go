package pages

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The rating configuration editor (admin, HR): the six metrics' weights,
// thresholds and switches in one form, saved through the same service
// method as PUT /api/v0/companies/{id}/rating-config. "Preview" sends the
// same form to the service's read-only preview, which validates it the same
// way and shows how last month's ranking would change; nothing is stored.

func (p *Pages) ratingConfig(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	cfg, err := p.svc.Rating.EditConfig(ctx, pr, pr.CompanyID)
	if err != nil {
		return err
	}
	d := views.RatingConfigData{CSRF: csrfToken(c), Total: cfg.TotalWeight.String()}
	for _, m := range cfg.Metrics {
		d.Rows = append(d.Rows, configRow(m))
	}
	return p.render(c, http.StatusOK, "ratingcfg.title", views.RatingConfigPage(d))
}

// configRow is a stored metric as the form shows it.
func configRow(m rating.MetricConfig) views.RatingConfigRow {
	key := rating.ThresholdKey(m.MetricName)
	row := views.RatingConfigRow{Metric: m.MetricName, Weight: m.Weight.String(), Enabled: m.IsEnabled, ThresholdKey: key}
	if v, ok := m.Thresholds[key]; ok {
		row.Threshold = v.String()
	} else {
		row.Threshold = m.Threshold().String()
	}
	return row
}

// saveRatingConfig saves the form (action=save) or previews it
// (action=preview). Refused values come back in the form with the
// service's messages beside their fields.
func (p *Pages) saveRatingConfig(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	d := views.RatingConfigData{CSRF: csrfToken(c)}
	// The form is read once the caller may change the configuration (403
	// before 400).
	read := func(u *rating.ConfigUpdate) error {
		form, err := c.FormParams()
		if err != nil {
			return apperr.BadRequest("msg.common.form_unreadable")
		}
		total := decimal.Zero
		for _, m := range rating.Metrics {
			key := rating.ThresholdKey(m)
			last := func(field string) string { return lastValue(form, field+"."+m) }
			row := views.RatingConfigRow{Metric: m, ThresholdKey: key, Weight: last("weight"), Threshold: last("threshold"),
				Enabled: last("enabled") == "true"}
			d.Rows = append(d.Rows, row)
			// Text values as they were typed: the service says what is wrong
			// with them, with the API's messages.
			e := rating.MetricUpdate{MetricName: jsonValue(m), Weight: jsonValue(strings.Replace(row.Weight, ",", ".", 1)),
				IsEnabled: jsonValue(row.Enabled)}
			e.Thresholds = jsonValue(map[string]string{key: strings.Replace(row.Threshold, ",", ".", 1)})
			u.Metrics = append(u.Metrics, e)
			if w, err := decimal.NewFromString(strings.Replace(row.Weight, ",", ".", 1)); err == nil {
				total = total.Add(w)
			}
		}
		d.Total = total.String()
		return nil
	}
	if c.FormValue("action") == "preview" {
		pv, err := p.svc.Rating.PreviewConfig(ctx, pr, pr.CompanyID, read, nil)
		if refusedConfig(lang, err, &d) {
			return p.render(c, http.StatusUnprocessableEntity, "ratingcfg.title", views.RatingConfigPage(d))
		}
		if err != nil {
			return err
		}
		d.Preview = previewView(lang, pv)
		return p.render(c, http.StatusOK, "ratingcfg.title", views.RatingConfigPage(d))
	}
	_, err := p.svc.Rating.UpdateConfig(ctx, pr, pr.CompanyID, read)
	if refusedConfig(lang, err, &d) {
		return p.render(c, http.StatusUnprocessableEntity, "ratingcfg.title", views.RatingConfigPage(d))
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "ratingcfg.saved")
	return p.redirect(c, "/ratings/config")
}

// refusedConfig puts a validation refusal's messages beside their fields
// (metrics.<index>.weight, .is_enabled, .thresholds.<key>; "metrics" for
// the sum and the number enabled) and reports whether err was one.
func refusedConfig(lang i18n.Lang, err error, d *views.RatingConfigData) bool {
	r, _ := refusalOf(lang, err, noFile)
	if !r.invalid() {
		return false
	}
	for key, msgs := range r.fields {
		var i int
		var field string
		if n, _ := fmt.Sscanf(strings.Replace(key, ".", " ", 2), "metrics %d %s", &i, &field); n == 2 && i >= 0 && i < len(d.Rows) {
			r := &d.Rows[i]
			switch {
			case field == "weight":
				r.WeightErrors = append(r.WeightErrors, msgs...)
			case strings.HasPrefix(field, "thresholds"):
				r.ThresholdErrors = append(r.ThresholdErrors, msgs...)
			default:
				r.OtherErrors = append(r.OtherErrors, msgs...)
			}
			continue
		}
		d.Errors = append(d.Errors, msgs...)
	}
	return true
}

func previewView(lang i18n.Lang, pv rating.Preview) *views.RatingPreview {
	out := &views.RatingPreview{Month: monthLabel(lang, pv.Period)}
	for _, r := range pv.Rows {
		row := views.RatingPreviewRow{
			DriverID: r.DriverID.String(), Name: r.FirstName + " " + r.LastName, Number: r.InternalNumber,
			Before: scoreText(lang, r.Before), After: scoreText(lang, r.After), AfterValue: r.After.StringFixed(2),
			PlaceBefore: r.PlaceBefore, PlaceAfter: r.PlaceAfter, Moved: r.PlaceBefore - r.PlaceAfter,
		}
		diff := r.After.Sub(r.Before)
		row.Diff, row.DiffSign = changeText(lang, diff), diff.Sign()
		if row.Moved != 0 || diff.Sign() != 0 {
			out.Changed++
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}
