package pages

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The readiness board (docs/web-app.md, "The readiness board"): the
// dispatcher's home page lists the active transport units by readiness,
// with the reasons in words, and the free drivers, vehicles and trailers;
// from it a unit is assigned (with a preview of its readiness over a
// trip's days), its trailer changed and it is unassigned. All of it is
// units.Service.

const (
	// boardPerPage is how many units the board shows at once: a whole
	// company's fleet in most cases, grouped on the page.
	boardPerPage = 500
	// boardLapseDays: a ready unit whose ready_until is within this many
	// days is in the "lapsing" group.
	boardLapseDays = 7
	// boardFreeLimit is how many free drivers, vehicles and trailers the
	// board lists beside the units (each list's first by number; the
	// assignment form offers formFreeLimit).
	boardFreeLimit = 30
	// formFreeLimit is how many of each the assignment form offers.
	formFreeLimit = 300
	// boardPartURL is the units part alone, with the board's filters.
	boardPartURL = "/units/board"
)

// boardLiveOn are the events that refresh the board's units part.
var boardLiveOn = strings.Join([]string{webhooks.UnitReadinessChanged, webhooks.UnitAssigned, webhooks.UnitUpdated,
	webhooks.UnitUnassigned, webhooks.DocumentFileUploaded, webhooks.DocumentUpdated, webhooks.DocumentReviewCompleted}, " ")

func (p *Pages) mountBoard(r *web.Routes) {
	r.GET(boardPartURL, p.boardPart)
	r.GET("/units/new", p.newUnit)
	r.POST("/units/new", p.assignUnit)
	r.GET("/units/:id/trailer", p.unitTrailerForm)
	r.POST("/units/:id/trailer", p.changeUnitTrailer)
	r.GET("/units/:id/unassign", p.confirmUnassign)
	r.POST("/units/:id/unassign", p.unassignUnit)
}

// boardState is the board's filters and page as the address holds them.
type boardState struct {
	Search string
	Office string
	Page   int
}

func readBoardState(q url.Values) boardState {
	s := boardState{Search: strings.TrimSpace(q.Get("search")), Office: q.Get("office_id")}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

func (s boardState) query(page int) string {
	q := url.Values{}
	if s.Search != "" {
		q.Set("search", s.Search)
	}
	if s.Office != "" {
		q.Set("office_id", s.Office)
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func (s boardState) params(lp *units.ListParams) {
	lp.Search = s.Search
	if id, err := uuid.Parse(s.Office); err == nil {
		lp.OfficeIDs = []uuid.UUID{id}
	}
	lp.Page = paging.Request{Number: s.Page, Size: boardPerPage}
}

// board is the board of the home page.
func (p *Pages) board(c echo.Context, pr auth.Principal) (*views.BoardData, error) {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	st := readBoardState(c.QueryParams())
	part, err := p.boardUnits(ctx, pr, lang, st)
	if err != nil {
		return nil, err
	}
	d := &views.BoardData{Search: st.Search, PartURL: part.PartURL, Units: part, CanAssign: part.CanAssign, FreeLimit: boardFreeLimit}
	offices, err := p.svc.Drivers.Offices(ctx, pr)
	if err != nil {
		return nil, err
	}
	for _, o := range offices {
		d.Offices = append(d.Offices, views.Option{Value: o.ID.String(), Label: o.Name, Selected: o.ID.String() == st.Office})
	}
	if d.CanAssign {
		if d.FreeDrivers, d.FreeVehicles, d.FreeTrailers, err = p.boardFree(ctx, pr, boardFreeLimit); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// boardFree are the free drivers, vehicles and trailers, each linked to
// the assignment form with it chosen.
func (p *Pages) boardFree(ctx context.Context, pr auth.Principal, limit int) (drv, veh, trl []views.BoardFree, err error) {
	ds, err := p.svc.Units.FreeDrivers(ctx, pr, "", limit)
	if err != nil {
		return nil, nil, nil, err
	}
	vs, err := p.svc.Units.FreeVehicles(ctx, pr, "", limit)
	if err != nil {
		return nil, nil, nil, err
	}
	ts, err := p.svc.Units.FreeTrailers(ctx, pr, "", limit)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range ds {
		drv = append(drv, views.BoardFree{ID: f.ID.String(), Label: f.Name, Number: f.InternalNumber, URL: driverURL(f.ID), Ready: f.IsReady,
			AssignURL: "/units/new?driver_id=" + f.ID.String()})
	}
	for _, f := range vs {
		veh = append(veh, views.BoardFree{ID: f.ID.String(), Label: f.PlateNumber, Number: f.InternalNumber, URL: "/vehicles/" + f.ID.String(), Ready: f.IsReady,
			AssignURL: "/units/new?vehicle_id=" + f.ID.String()})
	}
	for _, f := range ts {
		trl = append(trl, views.BoardFree{ID: f.ID.String(), Label: f.PlateNumber, Number: f.InternalNumber, URL: "/trailers/" + f.ID.String(), Ready: f.IsReady,
			AssignURL: "/units/new?trailer_id=" + f.ID.String()})
	}
	return drv, veh, trl, nil
}

// boardPart is the units part alone: what htmx fetches when an event
// arrives.
func (p *Pages) boardPart(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	part, err := p.boardUnits(ctx, pr, i18n.From(ctx), readBoardState(c.QueryParams()))
	if err != nil {
		return err
	}
	return p.fragment(c, http.StatusOK, views.BoardUnitsPart(part))
}

// boardUnits lists the active units with the filters and groups them.
func (p *Pages) boardUnits(ctx context.Context, pr auth.Principal, lang i18n.Lang, st boardState) (views.BoardUnits, error) {
	res, err := p.svc.Units.List(ctx, pr, func(lp *units.ListParams) error {
		st.params(lp)
		return nil
	})
	if err != nil {
		return views.BoardUnits{}, err
	}
	today := pr.Today()
	out := views.BoardUnits{PartURL: boardPartURL + st.query(st.Page), Total: res.Total, CanAssign: showsAll(pr, auth.UnitsWrite), LiveOn: boardLiveOn,
		Pager: pager(res, func(n int) string { return "/" + st.query(n) })}
	groups := map[string][]views.BoardUnit{}
	for _, u := range res.Items {
		row := views.BoardUnit{ID: u.ID.String(), Driver: driverName(u.Driver), DriverNumber: u.Driver.InternalNumber, DriverURL: driverURL(u.Driver.ID),
			Vehicle: u.Vehicle.PlateNumber, VehicleURL: "/vehicles/" + u.Vehicle.ID.String(), Ready: u.IsReady,
			Reasons:        reasonTexts(ctx, lang, today, unitNames(u), u.NotReadyReasons),
			TrailerFormURL: unitURL(u.ID) + "/trailer", UnassignURL: unitURL(u.ID) + "/unassign"}
		if u.Trailer != nil {
			row.Trailer, row.TrailerURL = u.Trailer.PlateNumber, "/trailers/"+u.Trailer.ID.String()
		}
		key := "ready"
		if u.ReadyUntil != nil && u.IsReady {
			days := today.DaysUntil(*u.ReadyUntil)
			row.ReadyUntil, row.DaysLeft = dayText(lang, *u.ReadyUntil), &days
			if days < boardLapseDays {
				key = "lapsing"
			}
		}
		if !u.IsReady {
			key = "not_ready"
		}
		groups[key] = append(groups[key], row)
	}
	for _, k := range []string{"not_ready", "lapsing", "ready"} {
		out.Groups = append(out.Groups, views.BoardGroup{Key: k, Units: groups[k]})
	}
	return out, nil
}

func unitURL(id uuid.UUID) string { return "/units/" + id.String() }

func driverName(d units.UnitDriver) string { return strings.TrimSpace(d.FirstName + " " + d.LastName) }

// holderNames are how a reason names a unit's driver, vehicle and trailer.
type holderNames struct{ Driver, Vehicle, Trailer string }

func unitNames(u units.Unit) holderNames {
	n := holderNames{Driver: driverName(u.Driver), Vehicle: u.Vehicle.PlateNumber}
	if u.Trailer != nil {
		n.Trailer = u.Trailer.PlateNumber
	}
	return n
}

// dayText is a day with its weekday: "Wed 9 Dec 2026".
func dayText(lang i18n.Lang, d civil.Date) string {
	return lang.T("board.weekday."+strconv.Itoa(int(d.Time().Weekday()))) + " " + lang.Date(d)
}

// reasonTexts say in words why a unit is not ready: "Trailer 2AB 3456:
// technical inspection expired on Wed 3 Dec 2026". A document that is
// still valid today but not through a trip's last day "runs out" on its
// last valid day.
func reasonTexts(ctx context.Context, lang i18n.Lang, today civil.Date, names holderNames, reasons []units.Reason) []string {
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		var holder string
		switch r.HolderType {
		case "driver":
			holder = lang.T("board.holder.driver", "name", names.Driver)
		case "vehicle":
			holder = lang.T("board.holder.vehicle", "plate", names.Vehicle)
		default:
			holder = lang.T("board.holder.trailer", "plate", names.Trailer)
		}
		var text string
		switch r.Code {
		case units.DriverNotActive:
			text = lang.T("board.reason.driver_not_active", "holder", holder)
		case units.VehicleNotActive, units.TrailerNotActive:
			text = lang.T("board.reason.not_active", "holder", holder)
		case units.DocumentMissing:
			text = lang.T("board.reason.document_missing", "holder", holder, "type", views.DocType(ctx, r.DocumentType))
		case units.DocumentExpired:
			key, day := "board.reason.document_expired", ""
			if r.Since != nil {
				last := r.Since.AddDays(-1)
				day = dayText(lang, last)
				if !last.Before(today) {
					key = "board.reason.document_runs_out"
				}
			}
			text = lang.T(key, "holder", holder, "type", views.DocType(ctx, r.DocumentType), "date", day)
		default:
			text = holder
		}
		out = append(out, text)
	}
	return out
}

// newUnit is the assignment form, with the driver, vehicle or trailer of
// the address chosen (the board's free rows link it so).
func (p *Pages) newUnit(c echo.Context) error {
	pr := web.Principal(c)
	q := c.QueryParams()
	d, err := p.unitForm(c, pr, unitChoice{Driver: q.Get("driver_id"), Vehicle: q.Get("vehicle_id"), Trailer: q.Get("trailer_id"),
		On: q.Get("on"), Through: q.Get("through")})
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "units.new.title", views.UnitForm(d))
}

// unitChoice is the assignment form's values as sent.
type unitChoice struct{ Driver, Vehicle, Trailer, On, Through string }

func readUnitChoice(c echo.Context) (unitChoice, error) {
	form, err := c.FormParams()
	if err != nil {
		return unitChoice{}, apperr.BadRequest("msg.common.form_unreadable")
	}
	if err := web.CheckText(form); err != nil {
		return unitChoice{}, err
	}
	return unitChoice{Driver: form.Get("driver_id"), Vehicle: form.Get("vehicle_id"), Trailer: form.Get("trailer_id"),
		On: form.Get("on"), Through: form.Get("through")}, nil
}

// formID reads an optional id of a form: "" is none, anything else not an
// id 422 at its field.
func formID(field, v string) (*uuid.UUID, error) {
	if v == "" {
		return nil, nil
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return nil, apperr.Invalid(field, "msg.units.choice_invalid")
	}
	return &id, nil
}

func formDay(field, v string) (*civil.Date, error) {
	if v == "" {
		return nil, nil
	}
	d, err := civil.Parse(v)
	if err != nil {
		return nil, apperr.Invalid(field, "msg.units.day_invalid")
	}
	return &d, nil
}

// assignUnit checks (the "Check" button, or htmx on a change: the
// preview alone) or assigns.
func (p *Pages) assignUnit(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	ch, err := readUnitChoice(c)
	if err != nil {
		return err
	}
	if c.Request().Header.Get("X-Unit-Check") != "" && isHTMX(c) {
		names, err := p.choiceNames(ctx, pr, ch)
		if err != nil {
			return err
		}
		prev, err := p.unitPreview(ctx, pr, lang, ch, names)
		if err != nil {
			return err
		}
		return p.fragment(c, http.StatusOK, views.UnitPreviewPart(prev))
	}
	if c.FormValue("check") != "" {
		d, err := p.unitForm(c, pr, ch)
		if err != nil {
			return err
		}
		return p.render(c, http.StatusOK, "units.new.title", views.UnitForm(d))
	}
	u, err := p.svc.Units.Assign(ctx, pr, func(in *units.AssignInput) error {
		var err error
		if in.DriverID, err = formID("driver_id", ch.Driver); err != nil {
			return err
		}
		if in.VehicleID, err = formID("vehicle_id", ch.Vehicle); err != nil {
			return err
		}
		in.TrailerID, err = formID("trailer_id", ch.Trailer)
		return err
	})
	if r, ok := refusalOf(lang, err, noFile); ok {
		d, ferr := p.unitForm(c, pr, ch)
		if ferr != nil {
			return ferr
		}
		d.Errors = r.fields
		return p.render(c, r.status, "units.new.title", views.UnitForm(d))
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "units.assigned", "driver", driverName(u.Driver), "vehicle", u.Vehicle.PlateNumber)
	return p.redirect(c, "/#unit-"+u.ID.String())
}

// unitForm is the assignment form with the choice ch and its preview.
func (p *Pages) unitForm(c echo.Context, pr auth.Principal, ch unitChoice) (views.UnitFormData, error) {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	drv, veh, trl, err := p.boardFree(ctx, pr, formFreeLimit)
	if err != nil {
		return views.UnitFormData{}, err
	}
	d := views.UnitFormData{CSRF: csrfToken(c), On: ch.On, Through: ch.Through, CancelURL: "/"}
	names := holderNames{}
	d.Drivers, names.Driver = freeOptions(drv, ch.Driver)
	d.Vehicles, names.Vehicle = freeOptions(veh, ch.Vehicle)
	d.Trailers, names.Trailer = freeOptions(trl, ch.Trailer)
	if d.Preview, err = p.unitPreview(ctx, pr, lang, ch, names); err != nil {
		return views.UnitFormData{}, err
	}
	return d, nil
}

// freeOptions are the free records as a select's options, the chosen one
// selected, and the chosen one's label.
func freeOptions(rows []views.BoardFree, chosen string) ([]views.Option, string) {
	var out []views.Option
	label := ""
	for _, f := range rows {
		o := views.Option{Value: f.ID, Label: f.Label + " · " + f.Number, Selected: f.ID == chosen}
		if o.Selected {
			label = f.Label
		}
		out = append(out, o)
	}
	return out, label
}

// choiceNames are the chosen records' names for the preview's words.
func (p *Pages) choiceNames(ctx context.Context, pr auth.Principal, ch unitChoice) (holderNames, error) {
	drv, veh, trl, err := p.boardFree(ctx, pr, formFreeLimit)
	if err != nil {
		return holderNames{}, err
	}
	var n holderNames
	_, n.Driver = freeOptions(drv, ch.Driver)
	_, n.Vehicle = freeOptions(veh, ch.Vehicle)
	_, n.Trailer = freeOptions(trl, ch.Trailer)
	return n, nil
}

// unitPreview is whether the chosen unit would be ready today and over
// the trip's days (units.Preview; nothing is saved).
func (p *Pages) unitPreview(ctx context.Context, pr auth.Principal, lang i18n.Lang, ch unitChoice, names holderNames) (*views.UnitPreview, error) {
	if ch.Driver == "" || ch.Vehicle == "" {
		return &views.UnitPreview{Hint: true}, nil
	}
	prop, on, through, err := proposal(ch)
	if err == nil {
		var now units.Readiness
		if now, err = p.svc.Units.Preview(ctx, pr, prop); err == nil {
			out := &views.UnitPreview{ReadyNow: now.IsReady, Now: reasonTexts(ctx, lang, pr.Today(), names, now.NotReadyReasons)}
			if on != nil || through != nil {
				prop.On, prop.Through = on, through
				var trip units.Readiness
				if trip, err = p.svc.Units.Preview(ctx, pr, prop); err == nil {
					from := pr.Today()
					if on != nil {
						from = *on
					}
					to := from
					if through != nil {
						to = *through
					}
					out.Trip = &views.UnitTrip{Span: dayText(lang, from) + " – " + dayText(lang, to), Ready: trip.IsReady,
						Reasons: reasonTexts(ctx, lang, from, names, trip.NotReadyReasons)}
					return out, nil
				}
			} else {
				return out, nil
			}
		}
	}
	if r, ok := refusalOf(lang, err, noFile); ok {
		return &views.UnitPreview{Problem: r.text()}, nil
	}
	return nil, err
}

// proposal reads the choice as a units.Proposal for today, and the
// trip's days.
func proposal(ch unitChoice) (units.Proposal, *civil.Date, *civil.Date, error) {
	var pr units.Proposal
	d, err := formID("driver_id", ch.Driver)
	if err != nil {
		return pr, nil, nil, err
	}
	v, err := formID("vehicle_id", ch.Vehicle)
	if err != nil {
		return pr, nil, nil, err
	}
	pr.DriverID, pr.VehicleID = *d, *v
	if pr.TrailerID, err = formID("trailer_id", ch.Trailer); err != nil {
		return pr, nil, nil, err
	}
	on, err := formDay("on", ch.On)
	if err != nil {
		return pr, nil, nil, err
	}
	through, err := formDay("through", ch.Through)
	if err != nil {
		return pr, nil, nil, err
	}
	return pr, on, through, nil
}

// unitTrailerForm is the form that changes a unit's trailer.
func (p *Pages) unitTrailerForm(c echo.Context) error {
	return p.trailerAnswer(c, http.StatusOK, nil)
}

func (p *Pages) trailerAnswer(c echo.Context, status int, errs map[string][]string) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	u, err := p.svc.Units.GetToChange(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	_, _, trl, err := p.boardFree(ctx, pr, formFreeLimit)
	if err != nil {
		return err
	}
	d := views.UnitTrailerData{CSRF: csrfToken(c), Action: unitURL(u.ID) + "/trailer", CancelURL: "/#unit-" + u.ID.String(),
		Driver: driverName(u.Driver), Vehicle: u.Vehicle.PlateNumber, Errors: errs}
	if u.Trailer != nil {
		d.Trailers = append(d.Trailers, views.Option{Value: u.Trailer.ID.String(), Label: u.Trailer.PlateNumber + " · " + u.Trailer.InternalNumber, Selected: true})
	}
	opts, _ := freeOptions(trl, "")
	d.Trailers = append(d.Trailers, opts...)
	return p.render(c, status, "units.trailer.title", views.UnitTrailerForm(d))
}

func (p *Pages) changeUnitTrailer(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	u, err := p.svc.Units.ChangeTrailer(ctx, pr, web.PathID(c, "id"), func(in *units.TrailerInput) error {
		id, err := formID("trailer_id", c.FormValue("trailer_id"))
		in.TrailerID, in.Given = id, true
		return err
	})
	if r, ok := refusalOf(lang, err, noFile); ok {
		return p.trailerAnswer(c, r.status, r.fields)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "units.trailer.changed", "driver", driverName(u.Driver))
	return p.redirect(c, "/#unit-"+u.ID.String())
}

// confirmUnassign asks before a unit ends.
func (p *Pages) confirmUnassign(c echo.Context) error {
	return p.unassignAnswer(c, http.StatusOK, nil)
}

func (p *Pages) unassignAnswer(c echo.Context, status int, errs []string) error {
	pr := web.Principal(c)
	u, err := p.svc.Units.GetToChange(c.Request().Context(), pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d := views.UnitUnassignData{CSRF: csrfToken(c), Action: unitURL(u.ID) + "/unassign", CancelURL: "/#unit-" + u.ID.String(),
		Driver: driverName(u.Driver), Vehicle: u.Vehicle.PlateNumber, Errors: errs}
	return p.render(c, status, "units.unassign.title", views.UnitUnassign(d))
}

func (p *Pages) unassignUnit(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	u, err := p.svc.Units.Unassign(ctx, pr, web.PathID(c, "id"), func(*units.UnassignInput) error { return nil })
	if r, ok := refusalOf(i18n.From(ctx), err, noFile); ok {
		return p.unassignAnswer(c, r.status, r.messages())
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "units.unassigned", "driver", driverName(u.Driver), "vehicle", u.Vehicle.PlateNumber)
	return p.redirect(c, "/")
}
