package pages

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// Penalty pages (docs/web-app.md, "Penalties"): a driver's penalties and
// one penalty with the driver's accept and dispute (phone first), HR's
// create form, and the company's dispute queue with the resolve form. Every
// action goes through the finance service the API uses; a refusal is shown
// in the form it concerns.

// queuePerPage is the dispute queue's page size.
const queuePerPage = 25

func (p *Pages) mountPenalties(r *web.Routes) {
	p.addOwnNav(views.NavItem{Href: "/penalties", Label: "nav.disputes", Icon: "scale", Description: "nav.disputes.about"},
		auth.PenaltiesRespond, func(pr auth.Principal) (views.NavItem, bool) {
			// A driver's entry is its own penalties (none when unlinked).
			if pr.DriverID == nil {
				return views.NavItem{}, false
			}
			return views.NavItem{Href: penaltiesURL(*pr.DriverID), Label: "nav.my_penalties", Icon: "scale",
				Description: "nav.my_penalties.about"}, true
		})
	r.GET("/penalties", p.disputeQueue)
	r.GET("/penalties/:id/evidence/:file_id", p.downloadEvidence)
	r.GET("/drivers/:id/penalties", p.penaltyList)
	r.GET("/drivers/:id/penalties/new", p.newPenalty)
	r.POST("/drivers/:id/penalties/new", p.createPenalty)
	r.GET("/drivers/:id/penalties/:penalty_id", p.penaltyPage)
	r.POST("/drivers/:id/penalties/:penalty_id/accept", p.acceptPenalty)
	r.POST("/drivers/:id/penalties/:penalty_id/dispute", p.disputePenalty)
	r.POST("/drivers/:id/penalties/:penalty_id/resolve", p.resolvePenalty)
	r.POST("/drivers/:id/penalties/:penalty_id/evidence", p.addPenaltyEvidence)
}

func penaltiesURL(driverID uuid.UUID) string { return driverURL(driverID) + "/penalties" }

// penaltyCard formats a penalty for the pages.
func penaltyCard(lang i18n.Lang, pr auth.Principal, pen finance.Penalty) views.PenaltyCard {
	loc := pr.Location()
	card := views.PenaltyCard{
		ID: pen.ID.String(), URL: penaltyURL(pen.DriverID, pen.ID), Type: pen.PenaltyType, Status: pen.Status,
		// A deduction, so negative, as on the home and pay pages.
		Amount: lang.Money(pen.Amount.Decimal().Neg(), pen.Currency), Deduction: lang.Money(pen.Amount.Decimal(), pen.Currency),
		IncidentDate: lang.Date(pen.IncidentDate),
		Description:  pen.Description, Location: deref(pen.Location), DisputeReason: deref(pen.DisputeReason),
		Resolution: deref(pen.Resolution), ResolvedBy: deref(pen.ResolvedBy),
	}
	if pen.DisputeSubmittedAt != nil {
		card.DisputedAt = lang.DateTime(*pen.DisputeSubmittedAt, loc)
		if pen.Status == finance.PenaltyDisputed {
			due := finance.ReviewDue(*pen.DisputeSubmittedAt, loc)
			card.ReviewDue, card.Overdue = lang.Date(due), due.Before(pr.Today())
		}
	}
	if pen.ResolvedAt != nil {
		card.ResolvedAt = lang.DateTime(*pen.ResolvedAt, loc)
		if pen.CorrectionID != nil {
			card.Correction = lang.T("penalty.correction", "date", lang.Day(*pen.ResolvedAt, loc))
			card.PayURL = payURL(pen.DriverID)
		}
	}
	for _, f := range pen.EvidenceFiles {
		card.Evidence = append(card.Evidence, views.EvidenceItem{
			URL:  "/penalties/" + pen.ID.String() + "/evidence/" + f.ID.String(),
			Name: f.OriginalFilename, Size: formatSize(lang, f.Size), Note: deref(f.Note), Image: f.IsImage(),
		})
	}
	return card
}

// penaltyDriver is the page header's driver: name and number, through the
// drivers' access check (every role that may list penalties may read drivers).
func (p *Pages) penaltyDriver(c echo.Context, driverID uuid.UUID) (views.DriverRef, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	d, err := p.svc.Drivers.Read(ctx, pr, driverID)
	if err != nil {
		return views.DriverRef{}, err
	}
	return views.DriverRef{URL: driverURL(d.ID), Name: fullName(d), Number: d.InternalNumber}, nil
}

// penaltyList is a driver's penalties, newest incident first.
func (p *Pages) penaltyList(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	driverID := web.PathID(c, "id")
	list, err := p.svc.Finance.ListPenalties(ctx, pr, driverID, finance.PenaltyFilter{Page: paging.Request{Number: 1, Size: 100}})
	if err != nil {
		return err
	}
	driver, err := p.penaltyDriver(c, driverID)
	if err != nil {
		return err
	}
	d := views.PenaltyListData{
		Driver: driver, Self: pr.DriverID != nil && *pr.DriverID == driverID,
		Total: lang.Money(list.Summary.TotalPenalties.Decimal().Neg(), list.Summary.Currency),
	}
	if shows(pr, auth.PenaltiesManage) {
		d.NewURL = penaltiesURL(driverID) + "/new"
	}
	for _, pen := range list.Items {
		d.Penalties = append(d.Penalties, penaltyCard(lang, pr, pen))
	}
	title := "penalty.list"
	if d.Self {
		title = "penalty.mine"
	}
	return p.render(c, http.StatusOK, title, views.PenaltyList(d))
}

// penaltyPage is one penalty with the forms the caller may use.
func (p *Pages) penaltyPage(c echo.Context) error {
	d, err := p.penaltyData(c)
	if err != nil {
		return err
	}
	return p.penaltyAnswer(c, http.StatusOK, d)
}

// penaltyData loads what the penalty page of the path's penalty shows.
func (p *Pages) penaltyData(c echo.Context) (views.PenaltyPageData, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	pen, err := p.svc.Finance.GetPenalty(ctx, pr, web.PathID(c, "id"), web.PathID(c, "penalty_id"))
	if err != nil {
		return views.PenaltyPageData{}, err
	}
	driver, err := p.penaltyDriver(c, pen.DriverID)
	if err != nil {
		return views.PenaltyPageData{}, err
	}
	self := pr.DriverID != nil && *pr.DriverID == pen.DriverID
	open := pen.Status == finance.PenaltyPending || pen.Status == finance.PenaltyDisputed
	respond := shows(pr, auth.PenaltiesRespond)
	staff := shows(pr, auth.PenaltiesManage)
	url := penaltyURL(pen.DriverID, pen.ID)
	max := p.svc.Finance.MaxUploadBytes()
	return views.PenaltyPageData{
		Driver: driver, Self: self, Penalty: penaltyCard(lang, pr, pen), ListURL: penaltiesURL(pen.DriverID),
		// The accept and dispute forms are the driver's own; staff may do
		// both through the API.
		CanAccept:      self && respond && pen.Status == finance.PenaltyPending,
		CanDispute:     self && respond && pen.Status == finance.PenaltyPending,
		CanResolve:     staff && pen.Status == finance.PenaltyDisputed,
		CanAddEvidence: respond && (staff || open),
		CSRF:           csrfToken(c),
		Dispute:        views.PenaltyForm{Action: url + "/dispute"},
		Accept:         views.PenaltyForm{Action: url + "/accept"},
		Evidence:       views.PenaltyForm{Action: url + "/evidence"},
		Resolve:        views.PenaltyForm{Action: url + "/resolve", Values: map[string]string{"back": "penalty"}},
		MaxFiles:       strconv.Itoa(finance.MaxFormFiles),
		MaxSize:        formatSize(lang, max),
	}, nil
}

func (p *Pages) penaltyAnswer(c echo.Context, status int, d views.PenaltyPageData) error {
	return p.render(c, status, "penalty.title", views.PenaltyPage(d))
}

// The penalty page's forms, for refusedPenaltyForm.
var (
	acceptForm   = func(d *views.PenaltyPageData) *views.PenaltyForm { return &d.Accept }
	disputeForm  = func(d *views.PenaltyPageData) *views.PenaltyForm { return &d.Dispute }
	evidenceForm = func(d *views.PenaltyPageData) *views.PenaltyForm { return &d.Evidence }
)

// refusedPenaltyForm shows the penalty page again with a refusal in the
// form it concerns (form picks it; values, when given, are what was sent),
// answering with the refusal's status. An error that is no refusal (a
// refusal of the caller among them) is returned as it is.
func (p *Pages) refusedPenaltyForm(c echo.Context, err error, form func(*views.PenaltyPageData) *views.PenaltyForm,
	values map[string]string) error {
	r, ok := refusalOf(i18n.From(c.Request().Context()), err, p.svc.Finance.MaxUploadBytes())
	if !ok {
		return err
	}
	// Read what the browser still sends (bounded by the cap), so it gets
	// the answer rather than a reset connection.
	_, _ = io.Copy(io.Discard, c.Request().Body)
	d, derr := p.penaltyData(c)
	if derr != nil {
		return derr
	}
	f := form(&d)
	f.Errors = r.fields
	if values != nil {
		f.Values = values
	}
	return p.penaltyAnswer(c, r.status, d)
}

// acceptPenalty records the driver's acceptance once it is confirmed: the
// page's Accept button posts without confirm=yes and gets the question
// (what is deducted, Yes or Cancel) in the page, so one tap never agrees
// to a deduction, with or without JavaScript. A caller who could not
// accept gets the service's refusal either way.
func (p *Pages) acceptPenalty(c echo.Context) error {
	if c.FormValue("confirm") != "yes" {
		d, err := p.penaltyData(c)
		if err != nil {
			return err
		}
		if d.CanAccept {
			d.ConfirmAccept = true
			return p.penaltyAnswer(c, http.StatusOK, d)
		}
	}
	pen, err := p.svc.Finance.AcceptPenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "penalty_id"))
	if err != nil {
		return p.refusedPenaltyForm(c, err, acceptForm, nil)
	}
	p.flash(c, views.FlashSuccess, "penalty.accepted")
	return p.redirect(c, penaltyURL(pen.DriverID, pen.ID))
}

// disputePenalty files the driver's dispute with its reason and photos
// through the dispute the API files (finance.Service.DisputePenalty). The
// whole form is read and every file checked first, so a refused file
// refuses the dispute before anything changes, and a phone's slow upload is
// in hand before the dispute locks the penalty; what was wrong with the
// form is answered after the penalty's checks, in the order of
// docs/errors.md. Then the files are stored on the disputed penalty (the
// driver may add files to a disputed penalty).
func (p *Pages) disputePenalty(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	driverID, penaltyID := web.PathID(c, "id"), web.PathID(c, "penalty_id")
	form, formErr := p.readEvidenceForm(c, map[string]int64{"dispute_reason": 4 * 5000})
	defer form.Remove()
	pen, err := p.svc.Finance.DisputePenalty(ctx, pr, driverID, penaltyID, func(in *finance.DisputeInput) error {
		reason := form.Values["dispute_reason"]
		in.DisputeReason = &reason
		return formErr
	})
	if err != nil {
		return p.refusedPenaltyForm(c, err, disputeForm, form.Values)
	}
	if _, err := p.svc.Finance.AddEvidenceFiles(ctx, pr, driverID, penaltyID, finance.Given(finance.EvidenceUpload{Files: form.Files})); err != nil {
		// Filed, but a file was refused (the penalty's file limit): said at
		// the evidence form, which the disputed penalty still shows.
		return p.refusedPenaltyForm(c, err, evidenceForm, nil)
	}
	p.flash(c, views.FlashSuccess, "penalty.dispute.sent")
	return p.redirect(c, penaltyURL(pen.DriverID, pen.ID))
}

// addPenaltyEvidence adds photos or PDFs to a penalty.
func (p *Pages) addPenaltyEvidence(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	driverID, penaltyID := web.PathID(c, "id"), web.PathID(c, "penalty_id")
	form := &finance.EvidenceForm{Values: map[string]string{}}
	defer func() { form.Remove() }()
	_, err := p.svc.Finance.AddEvidenceFiles(ctx, pr, driverID, penaltyID, func(up *finance.EvidenceUpload) error {
		var err error
		if form, err = p.readEvidenceForm(c, nil); err != nil {
			return err
		}
		if up.Note, err = form.Note(); err != nil {
			return err
		}
		if len(form.Files) == 0 {
			return apperr.Invalid("file", "msg.common.required", "field", i18n.M("field.finance.file"))
		}
		up.Files = form.Files
		return nil
	})
	if err != nil {
		return p.refusedPenaltyForm(c, err, evidenceForm, form.Values)
	}
	p.flash(c, views.FlashSuccess, "penalty.evidence.added", "count", strconv.Itoa(len(form.Files)))
	return p.redirect(c, penaltyURL(driverID, penaltyID))
}

// readEvidenceForm opens the capped multipart body of a form with evidence
// files and reads it through the finance service's checks. The form is
// never nil: a refused one holds the text fields read before the refusal.
func (p *Pages) readEvidenceForm(c echo.Context, fields map[string]int64) (*finance.EvidenceForm, error) {
	mr, err := web.UploadBody(c, p.svc.Finance.FormBytes())
	if err != nil {
		return &finance.EvidenceForm{Values: map[string]string{}}, err
	}
	return p.svc.Finance.ReadEvidenceForm(mr, fields)
}

// resolvePenalty settles a dispute from the penalty page or the queue
// ("back"); a refusal is shown in the resolve form it came from.
func (p *Pages) resolvePenalty(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	driverID, penaltyID := web.PathID(c, "id"), web.PathID(c, "penalty_id")
	values := map[string]string{}
	var unreadable error // a form that does not parse: the error page, not the form
	pen, err := p.svc.Finance.ResolvePenalty(ctx, pr, driverID, penaltyID, func(in *finance.ResolveInput) error {
		err := web.Bind(c, in)
		if apperr.KindOf(err) == apperr.KindBadRequest {
			unreadable = err
			return err
		}
		form, _ := c.FormParams() // parsed by Bind
		for _, k := range []string{"resolution_action", "new_amount", "resolution", "back"} {
			values[k] = strings.TrimSpace(form.Get(k))
		}
		return err
	})
	if err == nil {
		p.flash(c, views.FlashSuccess, "penalty.resolve.done")
		if values["back"] == "queue" {
			return p.redirect(c, "/penalties")
		}
		return p.redirect(c, penaltyURL(pen.DriverID, pen.ID))
	}
	r, ok := refusalOf(lang, err, noFile)
	if unreadable != nil || !ok {
		return err
	}
	if values["back"] == "queue" {
		return p.renderQueue(c, url.Values{}, r.status, penaltyID, views.PenaltyForm{Values: values, Errors: r.fields})
	}
	d, derr := p.penaltyData(c)
	if derr != nil {
		return derr
	}
	d.Resolve.Values, d.Resolve.Errors = values, r.fields
	return p.penaltyAnswer(c, r.status, d)
}

// newPenalty is HR's create form, with a fresh one-time token.
func (p *Pages) newPenalty(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	driverID := web.PathID(c, "id")
	if err := p.svc.Finance.PenaltyForm(ctx, pr, driverID); err != nil {
		return err
	}
	d, err := p.penaltyForm(c, driverID, map[string]string{"incident_date": pr.Today().String(), "severity": "minor"}, nil)
	if err != nil {
		return err
	}
	d.Token = forms.NewToken()
	return p.render(c, http.StatusOK, "penalty.new.title", views.PenaltyFormPage(d))
}

// penaltyFormFields are the create form's text fields and their largest
// values in bytes.
var penaltyFormFields = map[string]int64{
	"penalty_type": 100, "severity": 100, "amount": 100, "incident_date": 100, "location": 2000,
	"description": 4 * 5000, "form_token": 100,
}

// createPenalty records a penalty from the form with its evidence files.
// The form and every file are read and checked first; the form's one-time
// token is claimed before the create, so a form sent twice records one
// penalty and the second submission goes where the first went
// (docs/web-app.md, "Sending a form twice").
func (p *Pages) createPenalty(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	driverID := web.PathID(c, "id")
	if err := p.svc.Finance.PenaltyForm(ctx, pr, driverID); err != nil {
		return err
	}
	values := map[string]string{}
	refusedForm := func(err error) error {
		r, ok := refusalOf(lang, err, p.svc.Finance.MaxUploadBytes())
		if !ok {
			return err
		}
		_, _ = io.Copy(io.Discard, c.Request().Body)
		d, ferr := p.penaltyForm(c, driverID, values, r.fields)
		if ferr != nil {
			return ferr
		}
		d.Token = values["form_token"]
		return p.render(c, r.status, "penalty.new.title", views.PenaltyFormPage(d))
	}
	form, err := p.readEvidenceForm(c, penaltyFormFields)
	defer form.Remove()
	values = form.Values
	if err != nil {
		return refusedForm(err)
	}
	claim, err := p.svc.Forms.Claim(ctx, pr, values["form_token"])
	if err != nil {
		return refusedForm(err)
	}
	if !claim.Fresh {
		p.flash(c, views.FlashInfo, "penalty.new.already_saved")
		return p.redirect(c, claim.Done)
	}
	pen, err := p.createWithEvidence(c, driverID, form)
	if err != nil {
		if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
			return rerr
		}
		return refusedForm(err)
	}
	to := penaltyURL(driverID, pen.ID)
	if err := p.svc.Forms.Finish(ctx, pr, claim, to); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "penalty.new.created", "amount", lang.Money(pen.Amount.Decimal(), pen.Currency))
	return p.redirect(c, to)
}

// createWithEvidence creates the penalty of the form, then stores the
// form's files on it.
func (p *Pages) createWithEvidence(c echo.Context, driverID uuid.UUID, form *finance.EvidenceForm) (finance.Penalty, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	v := form.Values
	in := finance.PenaltyInput{Amount: money.TextInput(web.FormAmount(v["amount"]))}
	for name, dst := range map[string]**string{"penalty_type": &in.PenaltyType, "severity": &in.Severity,
		"incident_date": &in.IncidentDate, "location": &in.Location, "description": &in.Description} {
		if s, ok := v[name]; ok {
			*dst = &s
		}
	}
	pen, err := p.svc.Finance.CreatePenalty(ctx, pr, driverID, finance.Given(in))
	if err != nil || len(form.Files) == 0 {
		return pen, err
	}
	_, err = p.svc.Finance.AddEvidenceFiles(ctx, pr, driverID, pen.ID, finance.Given(finance.EvidenceUpload{Files: form.Files}))
	return pen, err
}

// penaltyForm fills the create form's choices, values and messages.
func (p *Pages) penaltyForm(c echo.Context, driverID uuid.UUID, values map[string]string, errs map[string][]string) (views.PenaltyFormData, error) {
	lang := i18n.From(c.Request().Context())
	driver, err := p.penaltyDriver(c, driverID)
	if err != nil {
		return views.PenaltyFormData{}, err
	}
	d := views.PenaltyFormData{
		Driver: driver, CSRF: csrfToken(c), Action: penaltiesURL(driverID) + "/new", CancelURL: penaltiesURL(driverID),
		Values: values, Errors: errs, MaxFiles: strconv.Itoa(finance.MaxFormFiles),
		MaxSize: formatSize(lang, p.svc.Finance.MaxUploadBytes()),
	}
	for _, t := range finance.PenaltyTypes {
		d.Types = append(d.Types, views.Option{Value: t, Label: lang.T("penalty.type." + t), Selected: values["penalty_type"] == t})
	}
	for _, s := range finance.PenaltySeverities {
		d.Severities = append(d.Severities, views.Option{Value: s, Label: lang.T("penalty.severity." + s), Selected: values["severity"] == s})
	}
	return d, nil
}

// disputeQueue is the company's dispute queue.
func (p *Pages) disputeQueue(c echo.Context) error {
	return p.renderQueue(c, c.QueryParams(), http.StatusOK, uuid.Nil, views.PenaltyForm{})
}

// queueStatuses are the dispute queue's filter choices; "" is disputed.
var queueStatuses = []string{finance.PenaltyDisputed, finance.PenaltyPending, finance.PenaltyAccepted, finance.PenaltyResolved, finance.PenaltyCancelled}

// renderQueue renders the dispute queue of the query q; a refused resolve
// of the penalty failed is shown in its form.
func (p *Pages) renderQueue(c echo.Context, q url.Values, status int, failed uuid.UUID, failedForm views.PenaltyForm) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	st := q.Get("status")
	if !slices.Contains(queueStatuses, st) {
		st = finance.PenaltyDisputed
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	queue, err := p.svc.Finance.PenaltyQueue(ctx, pr, finance.QueueFilter{Statuses: []string{st}, Page: paging.Request{Number: page, Size: queuePerPage}})
	if err != nil {
		return err
	}
	d := views.DisputeQueueData{Status: st, Total: queue.Total, CSRF: csrfToken(c)}
	for _, s := range queueStatuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("penalty.status." + s), Selected: s == st})
	}
	canResolve := shows(pr, auth.PenaltiesManage)
	shown := false
	for _, qp := range queue.Items {
		card := penaltyCard(lang, pr, qp.Penalty)
		card.Driver = views.DriverRef{URL: driverURL(qp.DriverID), Name: qp.DriverName, Number: qp.DriverNumber}
		item := views.DisputeItem{Penalty: card, CanResolve: canResolve && qp.Status == finance.PenaltyDisputed,
			Resolve: views.PenaltyForm{Action: card.URL + "/resolve", Values: map[string]string{"back": "queue"}}}
		if qp.ID == failed && item.CanResolve {
			item.Resolve.Values, item.Resolve.Errors, shown = failedForm.Values, failedForm.Errors, true
		}
		d.Items = append(d.Items, item)
	}
	if failed != uuid.Nil && !shown {
		for _, msgs := range failedForm.Errors {
			d.Problem = append(d.Problem, msgs...)
		}
	}
	pg := pager(queue.Page, func(n int) string {
		return "/penalties?status=" + url.QueryEscape(st) + "&page=" + strconv.Itoa(n)
	})
	d.PrevURL, d.NextURL = pg.PrevURL, pg.NextURL
	return p.render(c, status, "disputes.title", views.DisputeQueue(d))
}

// downloadEvidence sends an evidence file with the download headers of
// document files (web.ServeDownload); the finance service decides who may
// have it (penalties: list).
func (p *Pages) downloadEvidence(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	d, err := p.svc.Finance.OpenEvidence(ctx, pr, web.PathID(c, "id"), web.PathID(c, "file_id"))
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
