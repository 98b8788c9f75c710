package pages

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// homeListLimit is how many rows each list of a home page shows; its
// count says how many there are in all.
const homeListLimit = 10

func (p *Pages) mountHome(r *web.Routes) {
	p.addNav(views.NavItem{Href: "/", Label: "nav.home", Icon: "home"}, "")
	r.GET("/", p.home)
}

// home is the start page of every role (docs/web-app.md, "Home pages"):
// what needs doing, from the same services as the lists it links to.
// Each section is there when the role may read what it shows: documents
// for HR, admins and dispatchers, disputes for those who resolve them,
// the company's money for those who close pay periods, and a driver's own
// to-dos and pay for a driver.
func (p *Pages) home(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	co, err := p.svc.Tenants.Get(ctx, pr.CompanyID)
	if err != nil {
		return err
	}
	d := views.HomeData{Name: pr.Name, Role: string(pr.Role), CompanyName: co.Name}
	switch {
	case ownOnly(pr, auth.DriversRead) && pr.DriverID == nil:
		d.Unlinked = true
	case ownOnly(pr, auth.DriversRead):
		if d.Driver, err = p.driverHome(ctx, pr, lang, *pr.DriverID); err != nil {
			return err
		}
		// The driver is greeted by its record's name, not by its account's
		// display name, which may be missing (its e-mail address then).
		d.Name = d.Driver.Name
	default:
		if showsAll(pr, auth.UnitsWrite) {
			if d.Board, err = p.board(c, pr); err != nil {
				return err
			}
		}
		if shows(pr, auth.DocumentsList) {
			if d.Documents, err = p.homeDocuments(ctx, pr, lang); err != nil {
				return err
			}
		}
		if showsAll(pr, auth.DocumentsReview) {
			n, err := p.pendingReviews(ctx, pr)
			if err != nil {
				return err
			}
			d.Review = &views.HomeReview{Count: n, URL: reviewQueueURL}
		}
		if showsAll(pr, auth.DocumentRules) {
			rules, err := p.svc.Documents.Rules(ctx, pr, pr.CompanyID)
			if err != nil {
				return err
			}
			if documents.ReviewOffered(rules) {
				d.ReviewOffer = &views.ReviewOffer{CSRF: csrfToken(c), Return: "/"}
			}
		}
		if showsAll(pr, auth.PenaltiesManage) {
			if d.Disputes, err = p.homeDisputes(ctx, pr, lang); err != nil {
				return err
			}
		}
		if showsAll(pr, auth.PeriodsManage) {
			if d.Finance, err = p.homeFinance(ctx, pr, lang); err != nil {
				return err
			}
		}
		if showsAll(pr, auth.FleetWrite) {
			if d.Fleet, err = p.homeFleet(ctx, pr); err != nil {
				return err
			}
		}
	}
	if d.Documents == nil && d.Review == nil && d.Disputes == nil && d.Finance == nil && d.Driver == nil && d.Fleet == nil && d.Board == nil {
		for _, it := range p.navFor(ctx, pr, c.Request().URL.Path) {
			if it.Href != "/" {
				d.Links = append(d.Links, it)
			}
		}
	}
	return p.render(c, http.StatusOK, "home.title", views.Home(d))
}

// homeDocuments: drivers by document status, the documents in their alert
// window by stage, and the active drivers who are not ready and why.
func (p *Pages) homeDocuments(ctx context.Context, pr auth.Principal, lang i18n.Lang) (*views.HomeDocuments, error) {
	counts, err := p.svc.Drivers.DocumentStatusCounts(ctx, pr)
	if err != nil {
		return nil, err
	}
	due, err := p.svc.Documents.Due(ctx, pr, homeListLimit)
	if err != nil {
		return nil, err
	}
	notReady, err := p.svc.Drivers.NotReady(ctx, pr, homeListLimit)
	if err != nil {
		return nil, err
	}
	out := &views.HomeDocuments{NotReadyTotal: notReady.Total}
	for _, st := range []string{"expired", "expiring_soon", "warning"} {
		out.Counts = append(out.Counts, views.HomeCount{Label: "home.count.drivers_with", Status: st, Count: counts[st],
			URL: activeDriversURL(url.Values{"document_status": {st}})})
	}
	out.Counts = append(out.Counts, views.HomeCount{Label: "home.count.not_ready", Count: notReady.Total, URL: "#not-ready"})
	for _, st := range due.Stages {
		hs := views.HomeDueStage{Stage: st.Stage, Count: st.Count, ListURL: stageListURL(st.Stage, due.MaxLeadDays)}
		if st.Count > len(st.Documents) {
			hs.MoreURL = hs.ListURL
		}
		for _, doc := range st.Documents {
			hs.Docs = append(hs.Docs, views.HomeDueDoc{
				DriverName: doc.DriverName, DriverNumber: doc.DriverNumber, DriverURL: driverURL(doc.DriverID),
				Type: doc.Type, DocURL: documentURL(doc.DriverID, doc.ID), Status: doc.Status,
				ValidUntil: lang.Date(doc.ValidUntil), Days: doc.DaysLeft, LeadDays: doc.LeadDaysOfType,
			})
		}
		out.Stages = append(out.Stages, hs)
	}
	for _, n := range notReady.Items {
		row := views.HomeNotReady{Name: n.FirstName + " " + n.LastName, Number: n.InternalNumber, URL: driverURL(n.ID)}
		for _, m := range n.Missing {
			sf := views.HomeShortfall{Type: m.Type, Status: m.Status, LimitedBy: m.LimitedBy}
			if m.DocumentID != uuid.Nil {
				sf.URL = documentURL(n.ID, m.DocumentID)
			}
			row.Missing = append(row.Missing, sf)
		}
		out.NotReady = append(out.NotReady, row)
	}
	return out, nil
}

// homeFleet counts the active vehicles and trailers that are not ready,
// each linked to its list filtered alike (so the figure and the list
// agree); a vehicle sold or in service is not ready by definition and
// not counted.
func (p *Pages) homeFleet(ctx context.Context, pr auth.Principal) (*views.HomeFleet, error) {
	out := &views.HomeFleet{}
	st := fleetState{Status: []string{"active"}, Ready: "false", Page: 1}
	for _, k := range []fleetKind{p.vehicleKind(), p.trailerKind()} {
		st.path = k.path
		lp := st.params()
		lp.Page.Size = 1
		res, err := k.list(ctx, pr, fleetListParams(lp))
		if err != nil {
			return nil, err
		}
		out.Counts = append(out.Counts, views.HomeCount{Label: "home.fleet." + k.kind + "s_not_ready", Count: res.Total, URL: st.url()})
	}
	// Their documents that expired or are due within the fleet's usual
	// lead time, each linked to the documents list filtered alike.
	fleetDocs := []string{documents.HolderVehicle, documents.HolderTrailer}
	for _, c := range []struct {
		label string
		st    expiringState
	}{
		{"home.fleet.documents_expired", expiringState{Status: []string{"expired"}, Holders: fleetDocs, Page: 1}},
		{"home.fleet.documents_due", expiringState{Within: fleetDueDays, Holders: fleetDocs, Page: 1}},
	} {
		ep := c.st.params()
		ep.Page.Size = 1
		res, err := p.svc.Documents.Expiring(ctx, pr, expiryParams(ep))
		if err != nil {
			return nil, err
		}
		out.Counts = append(out.Counts, views.HomeCount{Label: c.label, Count: res.Total, URL: c.st.url()})
	}
	return out, nil
}

// fleetDueDays is the window of the home page's count of the fleet's
// documents due: the lead time of most of their types (docs/fleet.md).
const fleetDueDays = 30

// stageListURL is the documents list (the "Documents expiring" page) of
// a document alert stage: the expired ones, those expiring soon, and for
// the window stage the documents due within the longest lead time.
func stageListURL(stage string, maxLead int) string {
	if stage == documents.StageLead {
		return "/documents?expiring_within=" + strconv.Itoa(min(max(maxLead, 15), documents.MaxExpiringWithin))
	}
	return "/documents?status=" + stage
}

// activeDriversURL is the drivers list with the filters q, of the active
// drivers only, as the home page counts them.
func activeDriversURL(q url.Values) string {
	q.Set("status", strings.Join(drivers.ActiveStatuses, ","))
	return "/drivers?" + q.Encode()
}

// homeDisputes: the open disputes, oldest first, with their review due
// date (the dispute queue's first rows).
func (p *Pages) homeDisputes(ctx context.Context, pr auth.Principal, lang i18n.Lang) (*views.HomeDisputes, error) {
	q, err := p.svc.Finance.PenaltyQueue(ctx, pr, finance.QueueFilter{Page: paging.Request{Number: 1, Size: homeListLimit}})
	if err != nil {
		return nil, err
	}
	today, loc := pr.Today(), pr.Location()
	out := &views.HomeDisputes{Total: q.Total, QueueURL: "/penalties"}
	for _, pen := range q.Items {
		row := views.HomeDispute{
			DriverName: pen.DriverName, DriverNumber: pen.DriverNumber, DriverURL: driverURL(pen.DriverID),
			PenaltyURL: penaltyURL(pen.DriverID, pen.ID), Type: pen.PenaltyType, Reason: deref(pen.DisputeReason),
			Amount: amountView(lang, pen.Amount.Neg(), pen.Currency),
		}
		if pen.DisputeSubmittedAt != nil {
			row.Filed = lang.Day(*pen.DisputeSubmittedAt, loc)
		}
		if pen.ReviewDue != nil {
			row.Due, row.Overdue = lang.Date(*pen.ReviewDue), pen.ReviewDue.Before(today)
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// homeFinance: what waits for approval, what is approved but unpaid, the
// pay periods to close this month and this month's totals.
func (p *Pages) homeFinance(ctx context.Context, pr auth.Principal, lang i18n.Lang) (*views.HomeFinance, error) {
	ov, err := p.svc.Finance.CompanyOverview(ctx, pr, homeListLimit)
	if err != nil {
		return nil, err
	}
	today := pr.Today()
	out := &views.HomeFinance{
		Month: spanText(lang, ov.Month, today), PeriodsTotal: ov.PeriodsToCloseTotal,
		PendingURL: financeURL(url.Values{"status": {finance.StatusPending}}), ApprovedURL: financeURL(url.Values{"status": {finance.StatusApproved}}),
	}
	for _, t := range ov.Pending {
		out.Pending = append(out.Pending, views.HomeMoneyCount{Count: t.Count, Amount: amountView(lang, t.Amount, t.Currency),
			URL: financeURL(url.Values{"status": {finance.StatusPending}, "currency": {t.Currency}})})
	}
	for _, t := range ov.Approved {
		out.Approved = append(out.Approved, views.HomeMoneyCount{Count: t.Count, Amount: amountView(lang, t.Amount, t.Currency),
			URL: financeURL(url.Values{"status": {finance.StatusApproved}, "currency": {t.Currency}})})
	}
	if len(ov.PeriodsToClose) > 0 {
		// The oldest month first: its periods are the first to close.
		out.MonthEndURL = monthEndURL(ov.PeriodsToClose[0].Start, finance.PeriodOpen)
	}
	for _, pc := range ov.PeriodsToClose {
		out.PeriodsToClose = append(out.PeriodsToClose, views.HomePeriod{
			DriverName: pc.DriverName, DriverNumber: pc.DriverNumber, URL: driverURL(pc.DriverID) + "/finance/periods",
			Span: spanText(lang, pc.Start, pc.End), Net: amountView(lang, pc.NetAmount, pc.Currency), Overdue: pc.End.Before(ov.Month),
		})
	}
	for _, sm := range orderSummaries(ov.MonthTotals, pr.CompanyCurrency) {
		out.MonthTotals = append(out.MonthTotals, views.HomeMonthTotal{
			Currency: sm.Currency, Earnings: amountView(lang, sm.TotalEarnings, sm.Currency),
			Deductions: amountView(lang, sm.TotalDeductions.Neg(), sm.Currency), Penalties: amountView(lang, sm.TotalPenalties.Neg(), sm.Currency),
			Net: amountView(lang, sm.NetAmount, sm.Currency),
			URL: financeURL(url.Values{"from_date": {ov.Month.String()}, "to_date": {today.MonthEnd().String()}, "currency": {sm.Currency}}),
		})
	}
	return out, nil
}

// driverHome: the driver's documents to renew or hand in, the penalties it
// can still accept or dispute, and this month's pay so far.
func (p *Pages) driverHome(ctx context.Context, pr auth.Principal, lang i18n.Lang, id uuid.UUID) (*views.DriverHome, error) {
	due, err := p.svc.Documents.Due(ctx, pr, homeListLimit)
	if err != nil {
		return nil, err
	}
	drv, err := p.svc.Drivers.Read(ctx, pr, id)
	if err != nil {
		return nil, err
	}
	pens, err := p.svc.Finance.ListPenalties(ctx, pr, id, finance.PenaltyFilter{Statuses: []string{finance.PenaltyPending}, Page: paging.Request{Number: 1, Size: 50}})
	if err != nil {
		return nil, err
	}
	today := pr.Today()
	month, err := p.svc.Finance.ListTransactions(ctx, pr, id, finance.TransactionFilter{From: ptr(today.MonthStart()), To: ptr(today.MonthEnd()), Page: paging.Request{Number: 1, Size: 1}})
	if err != nil {
		return nil, err
	}

	out := &views.DriverHome{Name: strings.TrimSpace(drv.FirstName + " " + drv.LastName), ProfileURL: driverURL(id), PayURL: payURL(id), Month: spanText(lang, today.MonthStart(), today)}
	for _, st := range due.Stages {
		for _, doc := range st.Documents {
			days := doc.DaysLeft
			out.Documents = append(out.Documents, views.DriverTodo{Type: doc.Type, Status: doc.Status, URL: documentURL(id, doc.ID),
				ValidUntil: lang.Date(doc.ValidUntil), Days: &days})
		}
	}
	// The required documents without a file; a type the company does not
	// require of the driver is no task.
	for _, doc := range drv.Documents {
		if doc.Status == "no_data" && slices.Contains(drv.RequiredTypes, doc.Type) {
			out.Missing = append(out.Missing, views.DriverTodo{Type: doc.Type, Status: doc.Status, URL: documentURL(id, doc.ID)})
		}
	}
	loc := pr.Location()
	for _, pen := range pens.Items {
		out.Penalties = append(out.Penalties, views.DriverPenaltyTodo{
			URL: penaltyURL(id, pen.ID), Type: pen.PenaltyType, Filed: lang.Day(pen.CreatedAt, loc), Incident: lang.Date(pen.IncidentDate),
			Amount: amountView(lang, pen.Amount.Neg(), pen.Currency),
		})
	}
	sums := orderSummaries(month.Summaries, pr.CompanyCurrency)
	if len(sums) == 0 {
		sums = []finance.Summary{month.Summary} // zero, in the company's currency
	}
	for _, sm := range sums {
		out.Pay = append(out.Pay, amountView(lang, sm.NetAmount, sm.Currency))
	}
	if out.Unit, err = p.driverUnit(ctx, pr, lang, id, drv.Status); err != nil {
		return nil, err
	}
	// A role the rating service refuses sees no rating tile.
	switch r, err := p.svc.Rating.Read(ctx, pr, id, nil, nil); {
	case err == nil:
		out.RatingURL, out.Rating, out.RatingPercentile = ratingURL(id), scoreText(lang, numberDecimal(r.TotalScore)), r.RankPercentile
	case apperr.KindOf(err) != apperr.KindForbidden:
		return nil, err
	}
	return out, nil
}

// driverUnit is driver id's active transport unit for its home page
// (docs/dispatch.md), nil when it has none: from the units list narrowed
// to the driver, which a driver may read of its own. status is the
// driver's own, already read, which words its reason driver_not_active.
func (p *Pages) driverUnit(ctx context.Context, pr auth.Principal, lang i18n.Lang, id uuid.UUID, status string) (*views.DriverUnit, error) {
	page, err := p.svc.Units.List(ctx, pr, func(lp *units.ListParams) error {
		lp.DriverID, lp.Page = &id, paging.Request{Number: 1, Size: 1}
		return nil
	})
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	u := page.Items[0]
	out := &views.DriverUnit{Vehicle: views.UnitPart{Plate: u.Vehicle.PlateNumber, Number: u.Vehicle.InternalNumber}, Ready: u.IsReady}
	if u.Trailer != nil {
		out.Trailer = &views.UnitPart{Plate: u.Trailer.PlateNumber, Number: u.Trailer.InternalNumber}
	}
	if u.ReadyUntil != nil {
		out.ReadyUntil = lang.Date(*u.ReadyUntil)
	}
	for _, r := range u.NotReadyReasons {
		vr := views.UnitReason{Key: "home.unit.reason." + r.Code, Holder: "home.unit.holder." + r.HolderType, Type: r.DocumentType}
		if r.Since != nil {
			vr.Date = lang.Date(*r.Since)
		}
		if r.Code == units.DriverNotActive {
			vr.Status = "driver.status." + status
		}
		out.Reasons = append(out.Reasons, vr)
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

func documentURL(driverID, documentID uuid.UUID) string {
	return holderDocumentURL(documents.HolderDriver, driverID, documentID)
}

func penaltyURL(driverID, penaltyID uuid.UUID) string {
	return driverURL(driverID) + "/penalties/" + penaltyID.String()
}

func payURL(driverID uuid.UUID) string { return driverURL(driverID) + "/pay" }

// financeURL is the company's finance queue with filters.
func financeURL(q url.Values) string { return "/finance?" + q.Encode() }

// orderSummaries puts the company's currency first, then the others by code.
func orderSummaries(sums []finance.Summary, company string) []finance.Summary {
	out := slices.Clone(sums)
	slices.SortStableFunc(out, func(a, b finance.Summary) int {
		switch {
		case a.Currency == b.Currency:
			return 0
		case a.Currency == company:
			return -1
		case b.Currency == company:
			return 1
		case a.Currency < b.Currency:
			return -1
		}
		return 1
	})
	return out
}
