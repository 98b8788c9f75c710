package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestImportsTellUnitReadiness: a vehicle import that puts a unit's lorry
// in service, and a driver import that sends a unit's driver on leave,
// each make their unit not ready and tell it in the import's transaction
// (one transport_unit.readiness_changed event each, not the scheduler's
// next look), with the dispatcher's notification, whose live event
// notification.created names the unit; a driver import that terminates a
// driver ends its unit.
func TestImportsTellUnitReadiness(t *testing.T) {
	env := webtest.New(t)
	w := newUnitWorld(t, env, "Units imports")
	hr := env.As(w.company, auth.RoleHRManager)
	w.dispatcher.Get("/api/v0/notifications").Expect(http.StatusOK) // the user exists
	events := func(unit string) int {
		return webtest.Value[int](t, env, `SELECT count(*) FROM live_events WHERE company_id = $1
			AND type = 'transport_unit.readiness_changed' AND body::jsonb #>> '{data,unit,id}' = $2`, w.company, unit)
	}
	queued := func() int {
		return webtest.Value[int](t, env, `SELECT count(*) FROM transport_unit_changes WHERE company_id = $1`, w.company)
	}

	byFleet := w.assign(t, w.dispatcher, w.readyDriver(t), w.vehicle(t, "lkv", "active"), nil)
	im := fleetImport(t, sendFleetImport(t, w.dispatcher, "vehicles", "v.csv",
		[]byte("internal_number,status\n"+byFleet.Vehicle.InternalNumber+",in_service\n"), field("dry_run", "false")).Expect(http.StatusCreated))
	if im.Updated != 1 || len(im.Errors) != 0 {
		t.Fatalf("vehicle import %+v", im)
	}
	if n := events(byFleet.ID.String()); n != 1 || queued() != 0 {
		t.Fatalf("after the vehicle import: %d events, %d queued", n, queued())
	}
	body := webtest.Value[string](t, env, `SELECT body FROM live_events WHERE user_id = $1 AND type = 'notification.created'`, w.dispatcher.UserID)
	var live struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &live); err != nil {
		t.Fatal(err)
	}
	if live.Data["kind"] != units.KindUnit || live.Data["stage"] != units.StageNotReady || live.Data["unit_id"] != byFleet.ID.String() ||
		live.Data["driver_id"] != byFleet.Driver.ID.String() {
		t.Fatalf("notification.created: %s", body)
	}

	byDrivers := w.assign(t, w.dispatcher, w.readyDriver(t), w.vehicle(t, "lkv", "active"), nil)
	ended := w.assign(t, w.dispatcher, w.readyDriver(t), w.vehicle(t, "lkv", "active"), nil)
	var dim importResult
	sendImport(t, hr, "d.csv", []byte("internal_number;status\n"+byDrivers.Driver.InternalNumber+";on_leave\n"+
		ended.Driver.InternalNumber+";terminated\n"), field("dry_run", "false")).Expect(http.StatusCreated).Decode(&dim)
	if dim.Updated != 2 || len(dim.Errors) != 0 {
		t.Fatalf("driver import %+v", dim)
	}
	if n := events(byDrivers.ID.String()); n != 1 || queued() != 0 {
		t.Fatalf("after the driver import: %d events, %d queued", n, queued())
	}
	var got unitRead
	w.dispatcher.Get("/api/v0/transport-units/" + byDrivers.ID.String()).Expect(http.StatusOK).Decode(&got)
	if got.IsReady || len(got.NotReadyReasons) != 1 || got.NotReadyReasons[0].Code != units.DriverNotActive {
		t.Fatalf("the unit of the driver on leave: %+v", got)
	}
	w.dispatcher.Get("/api/v0/transport-units/" + ended.ID.String()).Expect(http.StatusOK).Decode(&got)
	if got.UnassignedAt == nil || events(ended.ID.String()) != 0 {
		t.Fatalf("the unit of the terminated driver: %+v, %d events", got, events(ended.ID.String()))
	}
}
