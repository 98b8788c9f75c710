package pages_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

// homeWorld is a company with two drivers whose documents, penalties and
// transactions fill every home page, and another company with a driver
// whose records must never show.
type homeWorld struct {
	env                     *webtest.Env
	company, other          uuid.UUID
	jan, petr, stranger     uuid.UUID
	janLicence, janPassport uuid.UUID
	petrTacho               uuid.UUID
	disputed, pending       uuid.UUID
	today                   civil.Date
}

func newHomeWorld(t *testing.T) *homeWorld {
	env := devEnv(t)
	w := &homeWorld{env: env, company: env.Company("Acme", "free"), other: env.Company("Other", "free")}
	var err error
	if w.today, err = civil.Parse(webtest.Today()); err != nil {
		t.Fatal(err)
	}
	w.jan = env.Driver(w.company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	w.petr = env.Driver(w.company, fixtures.Name("Petr", "Malý"), fixtures.Email("petr@acme.test"))
	w.stranger = env.Driver(w.other, fixtures.Name("Cizí", "Řidič"), fixtures.Email("cizi@other.test"))
	hr := env.As(w.company, auth.RoleHRManager)
	w.janLicence = w.document(t, hr, w.jan, "drivers_license", w.today.AddDays(-3))
	w.janPassport = w.document(t, hr, w.jan, "passport", w.today.AddDays(60))
	w.petrTacho = w.document(t, hr, w.petr, "tachograph_card", w.today.AddDays(5))
	w.document(t, env.As(w.other, auth.RoleHRManager), w.stranger, "passport", w.today.AddDays(-10))

	// Jan disputes one penalty and has another still pending; the
	// stranger's company has a dispute too.
	w.disputed = w.penalty(t, hr, w.jan, "speeding", "300.00")
	env.As(w.company, auth.RoleDriver, "jan@acme.test").
		Put(driverAPI(w.jan, "/penalties/"+w.disputed.String()+"/dispute"), map[string]any{"dispute_reason": "Jsem nejel já"}).
		Expect(http.StatusOK)
	w.pending = w.penalty(t, hr, w.jan, "late_delivery", "150.00")
	otherHR := env.As(w.other, auth.RoleHRManager)
	strangerPen := w.penalty(t, otherHR, w.stranger, "damage", "999.00")
	env.As(w.other, auth.RoleDriver, "cizi@other.test").
		Put(driverAPI(w.stranger, "/penalties/"+strangerPen.String()+"/dispute"), map[string]any{"dispute_reason": "Cizí spor"}).
		Expect(http.StatusOK)

	// Money this month: Jan earns 1 000 (pending) and 500 (approved);
	// Petr 2 000 (pending); the other company 7 777.
	acc := env.As(w.company, auth.RoleAccountant)
	w.transaction(t, acc, w.jan, "base_salary", "1000.00")
	approved := w.transaction(t, acc, w.jan, "bonus", "500.00")
	acc.Put(driverAPI(w.jan, "/finance/"+approved.String()), map[string]any{"status": "approved"}).Expect(http.StatusOK)
	w.transaction(t, acc, w.petr, "base_salary", "2000.00")
	w.transaction(t, env.As(w.other, auth.RoleAccountant), w.stranger, "base_salary", "7777.00")
	return w
}

func driverAPI(driver uuid.UUID, path string) string {
	return "/api/v0/drivers/" + driver.String() + path
}

// document uploads a file to the driver's document of the type, valid
// until the day, and returns the document's id.
func (w *homeWorld) document(t *testing.T, c *webtest.Caller, driver uuid.UUID, docType string, until civil.Date) uuid.UUID {
	t.Helper()
	var docs struct {
		Data []struct {
			ID   uuid.UUID
			Type string
		}
	}
	c.Get(driverAPI(driver, "/documents")).Expect(http.StatusOK).Decode(&docs)
	for _, d := range docs.Data {
		if d.Type == docType {
			body, header := webtest.PDFUpload(docType + ".pdf")
			c.Send(http.MethodPost, "/api/v0/documents/"+d.ID.String()+"/files", body, header).Expect(http.StatusCreated)
			c.Put("/api/v0/documents/"+d.ID.String(), map[string]any{"valid_until": until.String()}).Expect(http.StatusOK)
			return d.ID
		}
	}
	t.Fatalf("driver %s has no %s", driver, docType)
	return uuid.Nil
}

func (w *homeWorld) penalty(t *testing.T, c *webtest.Caller, driver uuid.UUID, kind, amount string) uuid.UUID {
	t.Helper()
	var pen struct{ ID uuid.UUID }
	c.Post(driverAPI(driver, "/penalties"), map[string]any{"penalty_type": kind, "amount": amount, "incident_date": w.today.String(),
		"description": "Home test"}).Expect(http.StatusCreated).Decode(&pen)
	return pen.ID
}

func (w *homeWorld) transaction(t *testing.T, c *webtest.Caller, driver uuid.UUID, kind, amount string) uuid.UUID {
	t.Helper()
	var tx struct{ ID uuid.UUID }
	c.Post(driverAPI(driver, "/finance"), map[string]any{"transaction_type": kind, "amount": amount, "transaction_date": w.today.String()}).
		Expect(http.StatusCreated).Decode(&tx)
	return tx.ID
}

func docPath(driver, doc uuid.UUID) string {
	return "/drivers/" + driver.String() + "/documents/" + doc.String()
}

func TestHomeOfHR(t *testing.T) {
	w := newHomeWorld(t)
	for _, role := range []auth.Role{auth.RoleHRManager, auth.RoleAdmin} {
		b := signIn(t, w.env, w.company, role, string(role)+"@acme.test", "en")
		res := b.get("/").expect(t, http.StatusOK)
		res.contains(t,
			// Counts link to the filtered lists.
			`href="/drivers?document_status=expired&amp;status=active%2Con_leave"`, `href="/drivers?document_status=expiring_soon&amp;status=active%2Con_leave"`,
			// Each stage names the document and the driver, linked.
			`href="`+docPath(w.jan, w.janLicence)+`"`, `href="`+docPath(w.jan, w.janPassport)+`"`, `href="`+docPath(w.petr, w.petrTacho)+`"`,
			"3 days ago", "60 days left", "5 days left",
			// Not ready, and why.
			`data-testid="not-ready-driver"`, "Jan Novák", "Petr Malý", "Tachograph card",
			// The open dispute with its review date.
			`href="/penalties"`, "Jsem nejel já", "Review by "+i18n.EN.Date(finance.ReviewDue(time.Now(), prague(t))),
			`href="/drivers/`+w.jan.String()+`/penalties/`+w.disputed.String()+`"`,
		).lacks(t, "Cizí", "Řidič", w.stranger.String())
		stages := map[string]string{"expired": w.janLicence.String(), "expiring_soon": w.petrTacho.String(), "lead": w.janPassport.String()}
		for stage, doc := range stages {
			i := strings.Index(res.Body, `data-stage="`+stage+`"`)
			if i < 0 || !strings.Contains(res.Body[i:min(len(res.Body), i+4000)], doc) {
				t.Errorf("%s: stage %s does not list document %s", role, stage, doc)
			}
		}
		if role == auth.RoleHRManager {
			res.lacks(t, `data-testid="home-finance"`)
		} else {
			res.contains(t, `data-testid="home-finance"`)
		}
	}

	// The dispatcher sees the documents, not the disputes.
	disp := signIn(t, w.env, w.company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get("/").expect(t, http.StatusOK).contains(t, `data-testid="home-documents"`).
		lacks(t, `data-testid="home-disputes"`, "Jsem nejel já", `data-testid="home-finance"`)
}

func TestHomeOfAccountant(t *testing.T) {
	w := newHomeWorld(t)
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en")
	res := acc.get("/").expect(t, http.StatusOK)
	// Pending: Jan's 1 000 and Petr's 2 000, and both penalties' records
	// (the disputed one is not pending): 3 000 − 150.
	res.contains(t, `href="/finance?status=pending"`, `href="/finance?status=approved"`,
		"3 transactions", "CZK\u00a02,850.00", "1 transaction<", "CZK\u00a0500.00",
		// This month: earnings 3 500, penalties 450, net 3 050.
		"CZK\u00a03,500.00", "-CZK\u00a0450.00", "CZK\u00a03,050.00", "currency=CZK",
		// The periods that end this month, each linked to its driver's periods.
		`href="/drivers/`+w.jan.String()+`/finance/periods"`, `href="/drivers/`+w.petr.String()+`/finance/periods"`,
		// And straight to the month-end page of their month, open periods.
		`data-testid="month-end-link"`, `href="/finance/month-end?month=`+w.today.String()[:7]+`&amp;status=open"`,
	).lacks(t, "7,777", "Cizí", `data-testid="home-documents"`, `data-testid="home-disputes"`, `data-testid="periods-more"`)

	// More periods than the card lists: "And N more." is the link to the
	// month-end page.
	acc2 := w.env.As(w.company, auth.RoleAccountant)
	for i := range 10 {
		d := w.env.Driver(w.company, fixtures.Name("Řidič", fmt.Sprintf("Další %02d", i)))
		w.transaction(t, acc2, d, "bonus", "10.00")
	}
	res = acc.get("/").expect(t, http.StatusOK)
	more := `<a href="/finance/month-end?month=` + w.today.String()[:7] + `&amp;status=open" class="font-medium text-blue-800 hover:underline" data-testid="periods-more">` +
		i18n.EN.T("home.more", "count", "2") + `</a>`
	res.contains(t, more)
}

func TestHomeOfDriver(t *testing.T) {
	w := newHomeWorld(t)
	jan := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "en")
	res := jan.get("/").expect(t, http.StatusOK)
	res.contains(t,
		// The pending penalty, linked, with the day it was filed; the
		// disputed one is no longer to do.
		`href="/drivers/`+w.jan.String()+`/penalties/`+w.pending.String()+`"`, "Penalty: Late delivery",
		"Filed "+i18n.EN.Date(w.today), "-CZK\u00a0150.00", "(deducted)",
		// Documents: the expired licence, the passport in its window, and
		// the required ones never handed in.
		`href="`+docPath(w.jan, w.janLicence)+`"`, `href="`+docPath(w.jan, w.janPassport)+`"`, "Renew: Driving licence",
		"Hand in: Tachograph card",
		// Pay so far: 1 500 − 450 penalties.
		`data-testid="driver-pay"`, "CZK\u00a01,050.00", `href="/drivers/`+w.jan.String()+`/pay"`,
	).lacks(t, w.disputed.String(), "Petr", w.petrTacho.String(), "Cizí", `data-testid="home-documents"`, `data-testid="home-finance"`)

	// In Czech, money and dates in Czech form.
	cs := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "cs")
	cs.get("/").expect(t, http.StatusOK).contains(t, "1\u00a0050,00\u00a0Kč", "Pokuta: Pozdní doručení", "Uložena "+i18n.CS.Date(w.today))
}

// TestHomeOfDriverShowsItsUnit: a driver without a unit reads a neutral
// line; with one, its vehicle's and trailer's plates and numbers, and
// whether the unit may drive: not ready, each reason in words in the
// driver's language (its expired licence since the day after its
// valid_until, the vehicle's documents missing); ready, until the day
// its first document expires. Another driver's unit never shows.
func TestHomeOfDriverShowsItsUnit(t *testing.T) {
	w := newHomeWorld(t)
	jan := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "en")
	jan.get("/").expect(t, http.StatusOK).contains(t, `data-testid="unit-none"`, "No vehicle assigned")

	disp := w.env.As(w.company, auth.RoleDispatcher)
	fleetRecord := func(kind, typ, plate string) (uuid.UUID, string) {
		var v struct {
			ID             uuid.UUID `json:"id"`
			InternalNumber string    `json:"internal_number"`
		}
		disp.Post("/api/v0/"+kind, map[string]any{"type": typ, "plate_number": plate}).Expect(http.StatusCreated).Decode(&v)
		return v.ID, v.InternalNumber
	}
	lorry, lorryNo := fleetRecord("vehicles", "lkv", "1AB 2345")
	trailer, trailerNo := fleetRecord("trailers", "mega", "1PB 0012")
	w.env.FileAll(trailer, w.today.AddDays(200))
	disp.Post("/api/v0/transport-units", map[string]any{"driver_id": w.jan, "vehicle_id": lorry, "trailer_id": trailer}).Expect(http.StatusCreated)
	res := jan.get("/").expect(t, http.StatusOK)
	res.contains(t, `data-testid="unit-vehicle"`, "1AB 2345", "("+lorryNo+")", "1PB 0012", "("+trailerNo+")", `data-ready="false"`,
		"Not ready to drive", "Your documents: Driving licence – not valid since "+i18n.EN.Date(w.today.AddDays(-2)),
		"Vehicle: Technical inspection – missing").lacks(t, "No vehicle assigned", "Trailer: ")
	uk := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "uk")
	uk.get("/").expect(t, http.StatusOK).contains(t, "Не готовий до рейсу",
		"Ваші документи: Посвідчення водія – не діє з "+i18n.UK.Date(w.today.AddDays(-2)))
	petr := signIn(t, w.env, w.company, auth.RoleDriver, "petr@acme.test", "en")
	petr.get("/").expect(t, http.StatusOK).contains(t, "No vehicle assigned").lacks(t, "1AB 2345")

	// Every document usable: ready through the earliest expiry.
	w.env.FileAll(w.jan, w.today.AddDays(90))
	w.env.FileAll(lorry, w.today.AddDays(30))
	cs := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "cs")
	cs.get("/").expect(t, http.StatusOK).contains(t, `data-ready="true"`, "Připraveno k jízdě",
		"Připraveno do "+i18n.CS.Date(w.today.AddDays(30))+" včetně").lacks(t, `data-testid="unit-reason"`)
}

func TestPayPage(t *testing.T) {
	w := newHomeWorld(t)
	jan := signIn(t, w.env, w.company, auth.RoleDriver, "jan@acme.test", "en")
	res := jan.get("/drivers/"+w.jan.String()+"/pay").expect(t, http.StatusOK)
	res.contains(t, "My pay", `data-testid="pay-net"`, "CZK\u00a01,050.00",
		"Base salary", "Bonus", "CZK\u00a01,000.00", "Pending", "Approved",
		// Each penalty's transaction links to the penalty.
		`href="/drivers/`+w.jan.String()+`/penalties/`+w.pending.String()+`"`,
		`href="/drivers/`+w.jan.String()+`/penalties/`+w.disputed.String()+`"`, "-CZK\u00a0300.00", "Disputed",
		// The month's period with its totals (the disputed penalty counts).
		`data-testid="pay-period"`, "Open", "-CZK\u00a0450.00",
	).lacks(t, "Petr", "2,000.00")

	// Another driver's pay, another company's: refused.
	jan.get("/drivers/"+w.petr.String()+"/pay").expect(t, http.StatusForbidden).lacks(t, "2,000.00")
	jan.get("/drivers/"+w.stranger.String()+"/pay").expect(t, http.StatusForbidden)

	// Staff who read finance open any driver's of their company.
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get("/drivers/"+w.petr.String()+"/pay").expect(t, http.StatusOK).contains(t, "Pay: Petr Malý", "CZK\u00a02,000.00")
	acc.get("/drivers/"+w.stranger.String()+"/pay").expect(t, http.StatusForbidden).lacks(t, "7,777")
	signIn(t, w.env, w.company, auth.RoleDispatcher, "disp@acme.test", "en").
		get("/drivers/"+w.jan.String()+"/pay").expect(t, http.StatusForbidden)
}

func prague(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
