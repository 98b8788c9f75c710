package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/web/webtest"
)

// unitRead is a transport unit as a test needs it.
type unitRead struct {
	ID     uuid.UUID `json:"id"`
	Driver struct {
		ID             uuid.UUID `json:"id"`
		InternalNumber string    `json:"internal_number"`
	} `json:"driver"`
	Vehicle struct {
		ID             uuid.UUID `json:"id"`
		InternalNumber string    `json:"internal_number"`
		Type           string    `json:"type"`
	} `json:"vehicle"`
	Trailer *struct {
		ID uuid.UUID `json:"id"`
	} `json:"trailer"`
	UnassignedAt    *time.Time     `json:"unassigned_at"`
	IsReady         bool           `json:"is_ready"`
	NotReadyReasons []units.Reason `json:"not_ready_reasons"`
	ReadyUntil      *civil.Date    `json:"ready_until"`
}

// unitWorld is a company with a dispatcher and records to assign: drivers
// whose required documents are valid for a year, lorries, a van (pkv) and
// trailers, their documents valid for a year.
type unitWorld struct {
	env        *webtest.Env
	company    uuid.UUID
	dispatcher *webtest.Caller
	today      civil.Date
}

func newUnitWorld(t *testing.T, env *webtest.Env, name string) *unitWorld {
	t.Helper()
	company := env.Company(name, "free")
	w := &unitWorld{env: env, company: company, dispatcher: env.As(company, auth.RoleDispatcher)}
	w.today = civil.DateOf(time.Now().In(time.UTC))
	tz := webtest.Value[string](t, env, `SELECT timezone FROM companies WHERE id = $1`, company)
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	w.today = civil.DateOf(time.Now().In(loc))
	return w
}

// fileAll gives every document of the holder a current file, valid until
// until (registration certificates have no expiry).
func (w *unitWorld) fileAll(t *testing.T, holder uuid.UUID, until civil.Date) {
	t.Helper()
	w.env.FileAll(holder, until)
}

// setUntil changes one document's valid_until.
func (w *unitWorld) setUntil(t *testing.T, holder uuid.UUID, typ string, until civil.Date) uuid.UUID {
	t.Helper()
	return webtest.Value[uuid.UUID](t, w.env, `UPDATE driver_documents SET valid_until = $3 WHERE holder_id = $1 AND type = $2 RETURNING id`, holder, typ, until)
}

func (w *unitWorld) readyDriver(t *testing.T, opts ...fixtures.DriverOption) uuid.UUID {
	t.Helper()
	id := w.env.Driver(w.company, opts...)
	w.fileAll(t, id, w.today.AddDays(365))
	return id
}

func (w *unitWorld) vehicle(t *testing.T, typ, status string) uuid.UUID {
	t.Helper()
	id, err := fleet.InsertVehicle(context.Background(), w.env.DB, fleet.Vehicle{CompanyID: w.company, Type: typ, Status: status,
		PlateNumber: "V" + uuid.NewString()[:6]})
	if err != nil {
		t.Fatal(err)
	}
	w.fileAll(t, id, w.today.AddDays(365))
	return id
}

func (w *unitWorld) trailer(t *testing.T, status string) uuid.UUID {
	t.Helper()
	id, err := fleet.InsertTrailer(context.Background(), w.env.DB, fleet.Trailer{CompanyID: w.company, Type: "standard", Status: status,
		PlateNumber: "T" + uuid.NewString()[:6]})
	if err != nil {
		t.Fatal(err)
	}
	w.fileAll(t, id, w.today.AddDays(365))
	return id
}

func (w *unitWorld) assign(t *testing.T, c *webtest.Caller, driver, vehicle uuid.UUID, trailer *uuid.UUID) unitRead {
	t.Helper()
	body := map[string]any{"driver_id": driver, "vehicle_id": vehicle}
	if trailer != nil {
		body["trailer_id"] = *trailer
	}
	var u unitRead
	c.Post("/api/v0/transport-units", body).Expect(http.StatusCreated).Decode(&u)
	return u
}

// TestTransportUnitRules: an assignment of a ready driver, lorry and
// trailer is ready until the earliest valid_until of their required
// documents; each of them is in one active unit only (409 naming the unit
// in the way, with its unit_id); a terminated driver, a sold or inactive
// vehicle and an inactive trailer are 409, a deleted driver 404, a trailer
// behind a van 422; the trailer changes and drops, the unit ends and stays
// as history; every step is audited.
func TestTransportUnitRules(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units rules")
	d := w.readyDriver(t)
	v, tr := w.vehicle(t, "lkv", "active"), w.trailer(t, "active")
	earliest := w.today.AddDays(40)
	w.setUntil(t, tr, "liability_insurance", earliest)

	u := w.assign(t, w.dispatcher, d, v, &tr)
	if !u.IsReady || len(u.NotReadyReasons) != 0 || u.ReadyUntil == nil || *u.ReadyUntil != earliest || u.Trailer == nil {
		t.Fatalf("a ready unit: %+v", u)
	}

	// The driver, the vehicle and the trailer are taken.
	v2, tr2 := w.vehicle(t, "lkv", "active"), w.trailer(t, "active")
	d2 := w.readyDriver(t)
	for name, body := range map[string]map[string]any{
		"driver":  {"driver_id": d, "vehicle_id": v2},
		"vehicle": {"driver_id": d2, "vehicle_id": v},
		"trailer": {"driver_id": d2, "vehicle_id": v2, "trailer_id": tr},
	} {
		m := w.dispatcher.Post("/api/v0/transport-units", body).ExpectError(http.StatusConflict, "Conflict")
		msg, _ := m["message"].(string)
		if m["unit_id"] != u.ID.String() || !strings.Contains(msg, u.Driver.InternalNumber) || !strings.Contains(msg, u.Vehicle.InternalNumber) {
			t.Errorf("the %s taken: %v", name, m)
		}
	}

	// Refusals of the records' states and kinds.
	van := w.vehicle(t, "pkv", "active")
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": d2, "vehicle_id": van, "trailer_id": tr2}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	gone := w.env.Driver(w.company, fixtures.Status("terminated"))
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": gone, "vehicle_id": v2}).ExpectError(http.StatusConflict, "Conflict")
	for _, st := range []string{"sold", "inactive"} {
		w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": d2, "vehicle_id": w.vehicle(t, "lkv", st)}).
			ExpectError(http.StatusConflict, "Conflict")
	}
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": d2, "vehicle_id": v2, "trailer_id": w.trailer(t, "inactive")}).
		ExpectError(http.StatusConflict, "Conflict")
	deleted := w.env.Driver(w.company, fixtures.Deleted())
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": deleted, "vehicle_id": v2}).ExpectError(http.StatusNotFound, "NotFound")
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"vehicle_id": v2}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	// An on-leave driver may be assigned; the unit is then not ready.
	leave := w.readyDriver(t, fixtures.Status("on_leave"))
	u2 := w.assign(t, w.dispatcher, leave, v2, nil)
	if u2.IsReady || len(u2.NotReadyReasons) != 1 || u2.NotReadyReasons[0].Code != units.DriverNotActive || u2.ReadyUntil != nil {
		t.Fatalf("an on-leave driver's unit: %+v", u2)
	}

	// The trailer changes, then goes.
	var changed unitRead
	w.dispatcher.Put("/api/v0/transport-units/"+u.ID.String(), map[string]any{"trailer_id": tr2}).Expect(http.StatusOK).Decode(&changed)
	if changed.Trailer == nil || changed.Trailer.ID != tr2 || changed.ReadyUntil == nil || *changed.ReadyUntil != w.today.AddDays(365) {
		t.Fatalf("the trailer changed: %+v", changed)
	}
	w.dispatcher.Put("/api/v0/transport-units/"+u.ID.String(), map[string]any{"trailer_id": nil}).Expect(http.StatusOK).Decode(&changed)
	if changed.Trailer != nil {
		t.Fatalf("the trailer dropped: %+v", changed)
	}
	w.dispatcher.Put("/api/v0/transport-units/"+u2.ID.String(), map[string]any{"trailer_id": tr}).Expect(http.StatusOK)

	// The unit ends; the driver and vehicle are free again.
	var ended unitRead
	w.dispatcher.Post("/api/v0/transport-units/"+u.ID.String()+"/unassign", nil).Expect(http.StatusOK).Decode(&ended)
	if ended.UnassignedAt == nil {
		t.Fatalf("the unit ended: %+v", ended)
	}
	w.dispatcher.Post("/api/v0/transport-units/"+u.ID.String()+"/unassign", nil).ExpectError(http.StatusConflict, "Conflict")
	var history struct {
		Data []unitRead `json:"data"`
	}
	w.dispatcher.Get("/api/v0/transport-units?active=false&driver_id=" + d.String()).Expect(http.StatusOK).Decode(&history)
	if len(history.Data) != 1 || history.Data[0].ID != u.ID {
		t.Fatalf("the history: %+v", history.Data)
	}
	again := w.assign(t, w.dispatcher, d, v, nil)
	if again.ID == u.ID {
		t.Fatal("the same unit again")
	}
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'transport_unit' AND entity_id = $1`, u.ID); n != 4 {
		t.Errorf("audit rows of the unit: %d, want 4 (assigned, 2 trailer changes, unassigned)", n)
	}
	var active struct {
		Data []unitRead `json:"data"`
	}
	w.dispatcher.Get("/api/v0/transport-units?is_ready=false").Expect(http.StatusOK).Decode(&active)
	if len(active.Data) != 1 || active.Data[0].ID != u2.ID {
		t.Fatalf("the not-ready units: %+v", active.Data)
	}
}

// TestTransportUnitConcurrentAssignments: twenty assignments of one driver
// to twenty vehicles at once leave exactly one unit.
func TestTransportUnitConcurrentAssignments(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units race")
	d := w.readyDriver(t)
	var vehicles []uuid.UUID
	for range 20 {
		vehicles = append(vehicles, w.vehicle(t, "lkv", "active"))
	}
	statuses := make([]int, len(vehicles))
	var wg sync.WaitGroup
	for i, v := range vehicles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": d, "vehicle_id": v}).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Fatalf("%d units created, want 1: %v", created, statuses)
	}
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM transport_units WHERE driver_id = $1 AND unassigned_at IS NULL`, d); n != 1 {
		t.Fatalf("%d active units of the driver", n)
	}
}

// TestTransportUnitTripReadiness: a trip over the day a document expires
// is not ready, the document expired from the day after its valid_until;
// a trip that ends on that day is ready, until that day. The driver's own
// readiness answers the same for the driver alone.
func TestTransportUnitTripReadiness(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units trips")
	d, v := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	until := w.today.AddDays(10)
	doc := w.setUntil(t, d, "code_95", until)
	u := w.assign(t, w.dispatcher, d, v, nil)
	if !u.IsReady || u.ReadyUntil == nil || *u.ReadyUntil != until {
		t.Fatalf("the unit: %+v", u)
	}
	var r units.Readiness
	w.dispatcher.Get(fmt.Sprintf("/api/v0/transport-units/%s/readiness?on=%s&through=%s", u.ID, w.today.AddDays(5), until)).
		Expect(http.StatusOK).Decode(&r)
	if !r.IsReady || r.ReadyUntil == nil || *r.ReadyUntil != until {
		t.Fatalf("a trip through the last usable day: %+v", r)
	}
	for _, path := range []string{"/api/v0/transport-units/" + u.ID.String(), "/api/v0/drivers/" + d.String()} {
		w.dispatcher.Get(fmt.Sprintf("%s/readiness?on=%s&through=%s", path, w.today.AddDays(5), until.AddDays(3))).
			Expect(http.StatusOK).Decode(&r)
		if r.IsReady || r.ReadyUntil != nil || len(r.NotReadyReasons) != 1 {
			t.Fatalf("%s: a trip past the expiry: %+v", path, r)
		}
		reason := r.NotReadyReasons[0]
		if reason.Code != units.DocumentExpired || reason.HolderType != "driver" || reason.HolderID != d ||
			reason.DocumentType != "code_95" || reason.Since == nil || *reason.Since != until.AddDays(1) {
			t.Fatalf("%s: the reason: %+v", path, reason)
		}
	}
	w.dispatcher.Get(fmt.Sprintf("/api/v0/transport-units/%s/readiness?on=%s&through=%s", u.ID, w.today.AddDays(5), w.today)).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	_ = doc

	// A missing document of the vehicle, then the vehicle in service.
	if _, err := env.DB.Exec(context.Background(), `UPDATE driver_documents SET current_file_id = NULL WHERE vehicle_id = $1 AND type = 'technical_inspection'`, v); err != nil {
		t.Fatal(err)
	}
	w.dispatcher.Put("/api/v0/vehicles/"+v.String(), map[string]any{"status": "in_service"}).Expect(http.StatusOK)
	var got unitRead
	w.dispatcher.Get("/api/v0/transport-units/" + u.ID.String()).Expect(http.StatusOK).Decode(&got)
	codes := []string{}
	for _, r := range got.NotReadyReasons {
		codes = append(codes, r.Code+":"+r.HolderType+":"+r.DocumentType)
	}
	if got.IsReady || strings.Join(codes, ",") != "vehicle_not_active:vehicle:,document_missing:vehicle:technical_inspection" {
		t.Fatalf("the stored readiness: %v %v", got.IsReady, codes)
	}
}

// TestTransportUnitReadinessAtMidnight: a unit whose document is valid
// through today stops being ready when the company's next day starts (the
// day-start recompute with a clock set past midnight in the company's time
// zone): one transport_unit.readiness_changed event and one notification
// per dispatcher and admin; a second start of that day tells nothing.
func TestTransportUnitReadinessAtMidnight(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units midnight")
	ctx := context.Background()
	if _, err := env.DB.Exec(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://hooks.example/x', '{*}', 'whsec_x')`, w.company); err != nil {
		t.Fatal(err)
	}
	second := env.As(w.company, auth.RoleDispatcher)
	admin := env.As(w.company, auth.RoleAdmin)
	hr := env.As(w.company, auth.RoleHRManager)
	for _, c := range []*webtest.Caller{w.dispatcher, second, admin, hr} {
		c.Get("/api/v0/notifications").Expect(http.StatusOK) // the user exists
	}
	d, v := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	w.setUntil(t, v, "liability_insurance", w.today)
	u := w.assign(t, w.dispatcher, d, v, nil)
	if !u.IsReady || *u.ReadyUntil != w.today {
		t.Fatalf("the unit today: %+v", u)
	}
	tz := webtest.Value[string](t, env, `SELECT timezone FROM companies WHERE id = $1`, w.company)
	loc, _ := time.LoadLocation(tz)
	startOf := func(at time.Time) int {
		t.Helper()
		due, err := units.DueDays(ctx, env.DB, at)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, dd := range due {
			if dd.CompanyID != w.company {
				continue
			}
			if _, err := units.StartDay(ctx, env.DB, dd.CompanyID, dd.Date); err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	late := time.Date(w.today.Year(), w.today.Month(), w.today.Day(), 23, 50, 0, 0, loc)
	if n := startOf(late); n != 1 {
		t.Fatalf("today's start: %d due", n)
	}
	if n := startOf(late); n != 0 {
		t.Fatalf("today's start again: %d due", n)
	}
	events := func() int {
		return webtest.Value[int](t, env, `SELECT count(*) FROM webhook_events WHERE company_id = $1 AND type = 'transport_unit.readiness_changed'`, w.company)
	}
	if events() != 0 {
		t.Fatal("an event before midnight")
	}
	if n := startOf(late.Add(20 * time.Minute)); n != 1 {
		t.Fatalf("tomorrow's start: %d due", n)
	}
	if n := startOf(late.Add(30 * time.Minute)); n != 0 {
		t.Fatalf("tomorrow's start again: %d due", n)
	}
	if n := events(); n != 1 {
		t.Fatalf("%d readiness events", n)
	}
	body := webtest.Value[string](t, env, `SELECT body::text FROM webhook_events WHERE company_id = $1 AND type = 'transport_unit.readiness_changed'`, w.company)
	if !strings.Contains(body, `"previous_is_ready":true`) || !strings.Contains(body, `"is_ready":false`) || !strings.Contains(body, u.ID.String()) {
		t.Fatalf("the event: %s", body)
	}
	for _, c := range []*webtest.Caller{w.dispatcher, second, admin} {
		var page struct {
			Data []struct {
				Kind     string     `json:"kind"`
				Stage    string     `json:"stage"`
				UnitID   *uuid.UUID `json:"unit_id"`
				DriverID *uuid.UUID `json:"driver_id"`
				Title    string     `json:"title"`
			} `json:"data"`
		}
		c.Get("/api/v0/notifications").Expect(http.StatusOK).Decode(&page)
		if len(page.Data) != 1 || page.Data[0].Kind != units.KindUnit || page.Data[0].Stage != units.StageNotReady ||
			page.Data[0].UnitID == nil || *page.Data[0].UnitID != u.ID || page.Data[0].DriverID == nil || *page.Data[0].DriverID != d ||
			!strings.Contains(page.Data[0].Title, u.Vehicle.InternalNumber) {
			t.Fatalf("%s's notifications: %+v", c.Role, page.Data)
		}
	}
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM notifications WHERE user_id = $1`, hr.UserID); n != 0 {
		t.Fatalf("the HR manager got %d", n)
	}
}

// TestTerminatingADriverEndsItsUnit: a driver's termination and a
// vehicle's sale end their units in the same change; a document's upload
// makes a unit ready again, with its notifications.
func TestTerminatingADriverEndsItsUnit(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units endings")
	hr := env.As(w.company, auth.RoleHRManager)
	d, v := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	u := w.assign(t, w.dispatcher, d, v, nil)
	hr.Put("/api/v0/drivers/"+d.String(), map[string]any{"status": "terminated"}).Expect(http.StatusOK)
	var got unitRead
	w.dispatcher.Get("/api/v0/transport-units/" + u.ID.String()).Expect(http.StatusOK).Decode(&got)
	if got.UnassignedAt == nil {
		t.Fatal("a terminated driver's unit is still active")
	}
	d2, v2 := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	u2 := w.assign(t, w.dispatcher, d2, v2, nil)
	w.dispatcher.Put("/api/v0/vehicles/"+v2.String(), map[string]any{"status": "sold"}).Expect(http.StatusOK)
	w.dispatcher.Get("/api/v0/transport-units/" + u2.ID.String()).Expect(http.StatusOK).Decode(&got)
	if got.UnassignedAt == nil {
		t.Fatal("a sold vehicle's unit is still active")
	}
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'transport_unit' AND action = 'unassigned'`); n != 2 {
		t.Fatalf("%d unassignments audited", n)
	}

	// A metadata change makes a unit not ready, another ready again.
	d3, v3 := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	w.dispatcher.Get("/api/v0/notifications").Expect(http.StatusOK)
	u3 := w.assign(t, w.dispatcher, d3, v3, nil)
	doc := webtest.Value[uuid.UUID](t, env, `SELECT id FROM driver_documents WHERE vehicle_id = $1 AND type = 'technical_inspection'`, v3)
	w.dispatcher.Put("/api/v0/documents/"+doc.String(), map[string]any{"valid_until": w.today.AddDays(-1).String()}).Expect(http.StatusOK)
	w.dispatcher.Get("/api/v0/transport-units/" + u3.ID.String()).Expect(http.StatusOK).Decode(&got)
	if got.IsReady {
		t.Fatal("ready with an expired inspection")
	}
	w.dispatcher.Put("/api/v0/documents/"+doc.String(), map[string]any{"valid_until": w.today.AddDays(100).String()}).Expect(http.StatusOK)
	stages := webtest.Value[string](t, env, `SELECT string_agg(stage, ',' ORDER BY created_at) FROM notifications WHERE user_id = $1 AND unit_id = $2`,
		w.dispatcher.UserID, u3.ID)
	if stages != "not_ready,ready" {
		t.Fatalf("the dispatcher's notifications: %q", stages)
	}
}

// TestTransportUnitAccess: HR reads, the accountant is refused, a driver
// reads its own unit and its own readiness only, another company's unit is
// AccessDenied, an unknown one NotFound; only dispatchers and admins
// assign.
func TestTransportUnitAccess(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units access")
	other := newUnitWorld(t, env, "Units other")
	email := "unit-driver@example.test"
	d := w.readyDriver(t, fixtures.Email(email))
	u := w.assign(t, w.dispatcher, d, w.vehicle(t, "lkv", "active"), nil)
	d2 := w.readyDriver(t)
	u2 := w.assign(t, w.dispatcher, d2, w.vehicle(t, "lkv", "active"), nil)
	ou := other.assign(t, other.dispatcher, other.readyDriver(t), other.vehicle(t, "lkv", "active"), nil)

	hr := env.As(w.company, auth.RoleHRManager)
	hr.Get("/api/v0/transport-units/" + u.ID.String()).Expect(http.StatusOK)
	hr.Post("/api/v0/transport-units", map[string]any{"driver_id": d2, "vehicle_id": uuid.New()}).ExpectError(http.StatusForbidden, "Forbidden")
	env.As(w.company, auth.RoleAccountant).Get("/api/v0/transport-units").ExpectError(http.StatusForbidden, "Forbidden")

	drv := env.As(w.company, auth.RoleDriver, email)
	drv.Get("/api/v0/transport-units/" + u.ID.String()).Expect(http.StatusOK)
	drv.Get("/api/v0/transport-units/" + u.ID.String() + "/readiness").Expect(http.StatusOK)
	drv.Get("/api/v0/drivers/" + d.String() + "/readiness").Expect(http.StatusOK)
	drv.Get("/api/v0/transport-units/"+u2.ID.String()).ExpectError(http.StatusForbidden, "AccessDenied")
	drv.Get("/api/v0/drivers/"+d2.String()+"/readiness").ExpectError(http.StatusForbidden, "AccessDenied")
	drv.Post("/api/v0/transport-units/"+u.ID.String()+"/unassign", nil).ExpectError(http.StatusForbidden, "Forbidden")
	var mine struct {
		Data []unitRead `json:"data"`
	}
	drv.Get("/api/v0/transport-units").Expect(http.StatusOK).Decode(&mine)
	if len(mine.Data) != 1 || mine.Data[0].ID != u.ID {
		t.Fatalf("the driver's list: %+v", mine.Data)
	}

	w.dispatcher.Get("/api/v0/transport-units/"+ou.ID.String()).ExpectError(http.StatusForbidden, "AccessDenied")
	w.dispatcher.Post("/api/v0/transport-units/"+ou.ID.String()+"/unassign", nil).ExpectError(http.StatusForbidden, "AccessDenied")
	w.dispatcher.Get("/api/v0/transport-units/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")
	w.dispatcher.Post("/api/v0/transport-units", map[string]any{"driver_id": ou.Driver.ID, "vehicle_id": ou.Vehicle.ID}).
		ExpectError(http.StatusForbidden, "AccessDenied")
	if got := webtest.Value[bool](t, env, `SELECT unassigned_at IS NULL FROM transport_units WHERE id = $1`, ou.ID); !got {
		t.Fatal("another company's unit ended")
	}
}

// TestDispatchersDigestListsUnitsAboutToStop: the day's scan puts in each
// dispatcher's e-mail the units whose ready_until entered the lead window
// of the document that sets it (a vehicle's insurance: 30 days) that day.
func TestDispatchersDigestListsUnitsAboutToStop(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units digest")
	w.dispatcher.Get("/api/v0/notifications").Expect(http.StatusOK) // the user exists
	d, v := w.readyDriver(t), w.vehicle(t, "lkv", "active")
	w.setUntil(t, v, "liability_insurance", w.today.AddDays(30))
	u := w.assign(t, w.dispatcher, d, v, nil)
	if !u.IsReady || *u.ReadyUntil != w.today.AddDays(30) {
		t.Fatalf("the unit: %+v", u)
	}
	res, err := alerts.NewScanner(env.DB, "https://konvoj.example").Scan(context.Background(), w.company, w.today, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range res.Calls {
		if c.Kind == alerts.KindUnit && c.UserID == w.dispatcher.UserID && c.DriverID == d {
			found = true
		}
	}
	if !found {
		t.Fatalf("no unit in the dispatcher's calls: %+v", res.Calls)
	}
	mail := webtest.Value[string](t, env, `SELECT text_body FROM outbox WHERE company_id = $1 AND lower(recipient) = lower($2)`, w.company, w.dispatcher.Email)
	if !strings.Contains(mail, u.Vehicle.InternalNumber) {
		t.Fatalf("the dispatcher's e-mail: %s", mail)
	}
}
