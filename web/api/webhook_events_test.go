package api_test

import (
	"context"
	"net/http"
	"sort"
	"testing"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web/webtest"
)

// Every event type reaches a receiver subscribed to all, signed (checked by
// the Standard Webhooks library), with the entity the API returns, in the
// shape the OpenAPI document's webhooks section describes.
func TestWebhookEveryEventType(t *testing.T) {
	env := webhookEnv(t)
	company := env.Company("Events", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	r := newHookReceiver(t)
	createHook(t, admin, r, "*")
	startDeliveries(t, env, r, nil, webhooks.Guard{AllowPrivate: true})
	ctx := context.Background()

	// Drivers.
	email := "eva.events@example.test"
	drv := admin.Post("/api/v0/drivers", map[string]any{"first_name": "Eva", "last_name": "Events", "email": email}).
		Expect(http.StatusCreated).JSON()
	id := drv["id"].(string)
	admin.Put("/api/v0/drivers/"+id, map[string]any{"phone": "+420 777 000 222"}).Expect(http.StatusOK)
	gone := admin.Post("/api/v0/drivers", map[string]any{"first_name": "Gone", "last_name": "Soon", "email": "gone@example.test"}).
		Expect(http.StatusCreated).JSON()["id"].(string)
	admin.Delete("/api/v0/drivers/" + gone).Expect(http.StatusNoContent)
	for _, kind := range []struct{ path, typ string }{{"/api/v0/vehicles", "lkv"}, {"/api/v0/trailers", "mega"}} {
		rec := admin.Post(kind.path, map[string]any{"type": kind.typ, "plate_number": kind.typ + " 1"}).Expect(http.StatusCreated).JSON()
		admin.Put(kind.path+"/"+rec["id"].(string), map[string]any{"color": "red"}).Expect(http.StatusOK)
		admin.Delete(kind.path + "/" + rec["id"].(string)).Expect(http.StatusNoContent)
	}

	// A transport unit: assigned, its trailer dropped (its readiness, set
	// ready beforehand, worked out again: not ready), ended.
	veh := admin.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "unit 1"}).Expect(http.StatusCreated).JSON()["id"].(string)
	trl := admin.Post("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "unit 2"}).Expect(http.StatusCreated).JSON()["id"].(string)
	unit := admin.Post("/api/v0/transport-units", map[string]any{"driver_id": id, "vehicle_id": veh, "trailer_id": trl}).
		Expect(http.StatusCreated).JSON()["id"].(string)
	if _, err := env.DB.Exec(ctx, `UPDATE transport_units SET is_ready = true WHERE id = $1`, unit); err != nil {
		t.Fatal(err)
	}
	admin.Put("/api/v0/transport-units/"+unit, map[string]any{"trailer_id": nil}).Expect(http.StatusOK)
	admin.Post("/api/v0/transport-units/"+unit+"/unassign", nil).Expect(http.StatusOK)

	// Documents: upload, metadata, a driver's upload reviewed by HR.
	var docs struct {
		Data []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
	}
	admin.Get("/api/v0/drivers/" + id + "/documents").Expect(http.StatusOK).Decode(&docs)
	doc, reviewed := docs.Data[0], docs.Data[1]
	body, h := webtest.PDFUpload("passport.pdf")
	admin.Send(http.MethodPost, "/api/v0/documents/"+doc.ID+"/files", body, h).Expect(http.StatusCreated)
	today, err := civil.Parse(webtest.Today())
	if err != nil {
		t.Fatal(err)
	}
	soon := today.AddDays(10).String()
	admin.Put("/api/v0/documents/"+doc.ID, map[string]any{"number": "P-1", "valid_until": soon}).Expect(http.StatusOK)
	admin.Put("/api/v0/companies/"+company.String()+"/document-rules", map[string]any{"rules": []any{
		map[string]any{"document_type": reviewed.Type, "requires_review": true}}}).Expect(http.StatusOK)
	driver := env.As(company, auth.RoleDriver, email)
	body, h = webtest.PDFUpload("own.pdf")
	file := driver.Send(http.MethodPost, "/api/v0/documents/"+reviewed.ID+"/files", body, h).Expect(http.StatusCreated).JSON()["id"].(string)
	admin.Post("/api/v0/documents/"+reviewed.ID+"/files/"+file+"/review", map[string]any{"decision": "approve"}).Expect(http.StatusOK)

	// Finance.
	base := "/api/v0/drivers/" + id + "/finance"
	tx := func() string {
		return admin.Post(base, map[string]any{"transaction_type": "bonus", "amount": "100.00", "transaction_date": webtest.Today()}).
			Expect(http.StatusCreated).JSON()["id"].(string)
	}
	paid, cancelled, deleted := tx(), tx(), tx()
	admin.Put(base+"/"+paid, map[string]any{"status": "approved"}).Expect(http.StatusOK)
	admin.Put(base+"/"+paid, map[string]any{"status": "paid"}).Expect(http.StatusOK)
	admin.Put(base+"/"+cancelled, map[string]any{"status": "cancelled"}).Expect(http.StatusOK)
	admin.Delete(base + "/" + deleted).Expect(http.StatusNoContent)

	// Penalties.
	pbase := "/api/v0/drivers/" + id + "/penalties"
	penalty := func() string {
		return admin.Post(pbase, map[string]any{"penalty_type": "other", "amount": "10.00", "incident_date": webtest.Today(), "description": "x"}).
			Expect(http.StatusCreated).JSON()["id"].(string)
	}
	disputed, accepted := penalty(), penalty()
	driver.Put(pbase+"/"+disputed+"/dispute", map[string]any{"dispute_reason": "Not me."}).Expect(http.StatusOK)
	admin.Put(pbase+"/"+disputed+"/resolve", map[string]any{"resolution_action": "keep", "resolution": "It was."}).Expect(http.StatusOK)
	driver.Put(pbase+"/"+accepted+"/accept", nil).Expect(http.StatusOK)

	// Periods: last month's closed, reopened, closed again, then paid; a
	// penalty of that month cancelled meanwhile posts its correction.
	period := admin.Post(base, map[string]any{"transaction_type": "bonus", "amount": "100.00", "transaction_date": pragueMonth(1).String()}).
		Expect(http.StatusCreated).JSON()["period_id"].(string)
	late := admin.Post(pbase, map[string]any{"penalty_type": "other", "amount": "30.00", "incident_date": pragueMonth(1).String(), "description": "x"}).
		Expect(http.StatusCreated).JSON()["id"].(string)
	admin.Post(base+"/periods/"+period+"/close", map[string]any{"force": true}).Expect(http.StatusOK)
	admin.Post(base+"/periods/"+period+"/reopen", map[string]any{"reason": "A late invoice."}).Expect(http.StatusOK)
	admin.Post(base+"/periods/"+period+"/close", map[string]any{"force": true}).Expect(http.StatusOK)
	driver.Put(pbase+"/"+late+"/dispute", map[string]any{"dispute_reason": "Not me."}).Expect(http.StatusOK)
	correction := admin.Put(pbase+"/"+late+"/resolve", map[string]any{"resolution_action": "cancel"}).Expect(http.StatusOK).JSON()["correction_id"]
	admin.Post(base+"/periods/"+period+"/pay", map[string]any{}).Expect(http.StatusOK)

	// Import, the daily scan and the monthly rating.
	res := sendImport(t, admin, "drivers.csv", []byte("first_name,last_name,email\nIva,Importovaná,iva@example.test\n"),
		part{name: "dry_run", body: []byte("false")})
	res.Expect(http.StatusCreated)
	scanDay := today.AddDays(1)
	if _, err := alerts.NewScanner(env.DB, "https://konvoj.example").Scan(ctx, company, scanDay, nil); err != nil {
		t.Fatal(err)
	}
	month, err := rating.ParsePeriod(today.Time().Format("2006-01"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rating.NewService(env.DB).RateCompany(ctx, company, month); err != nil {
		t.Fatal(err)
	}

	got := r.waitFor("every event type", func(d []hookDelivery) bool {
		seen := map[string]bool{}
		for _, e := range d {
			seen[e.Type] = true
		}
		for _, e := range webhooks.Events {
			if !seen[e] {
				return false
			}
		}
		return true
	})
	byType := map[string]hookDelivery{}
	var types []string
	for _, e := range got {
		if _, ok := byType[e.Type]; !ok { // the first of each type
			types = append(types, e.Type)
			byType[e.Type] = e
		}
	}
	sort.Strings(types)
	t.Logf("event types received: %v", types)
	// Each body is what the OpenAPI document's webhooks section says.
	for _, e := range got {
		checkWebhookBody(t, e.Type, e.Body)
	}
	for typ, want := range map[string]string{
		webhooks.DriverCreated: id, webhooks.DriverUpdated: id, webhooks.DriverDeleted: gone,
		webhooks.DocumentUpdated: doc.ID, webhooks.DocumentStatusChanged: doc.ID, webhooks.DocumentReviewCompleted: file,
		webhooks.TransactionApproved: paid, webhooks.TransactionPaid: paid, webhooks.TransactionCancelled: cancelled,
		webhooks.TransactionDeleted: deleted, webhooks.PeriodClosed: period, webhooks.PeriodPaid: period, webhooks.PeriodReopened: period,
		webhooks.PenaltyDisputed: disputed, webhooks.PenaltyResolved: disputed, webhooks.PenaltyAccepted: accepted,
		webhooks.ImportCompleted: res.JSON()["id"].(string),
	} {
		if byType[typ].Data["id"] != want {
			t.Errorf("%s: data %v, want the record %s", typ, byType[typ].Data, want)
		}
	}
	if d := byType[webhooks.DocumentStatusChanged].Data; d["stage"] != "expiring_soon" || d["number"] != "P-1" {
		t.Errorf("document.status_changed: %v", d)
	}
	if d := byType[webhooks.DriverUpdated].Data; d["phone"] != "+420777000222" || d["internal_number"] == nil {
		t.Errorf("driver.updated: %v", d)
	}
	if d := byType[webhooks.TransactionPaid].Data; d["status"] != "paid" || d["amount"] != 100.0 {
		t.Errorf("finance_transaction.paid: %v", d)
	}
	if d := byType[webhooks.RatingMonthCompleted].Data; d["rating_period"] != month.String() {
		t.Errorf("rating.month_completed: %v", d)
	}
	if d := byType[webhooks.DocumentReviewCompleted].Data; d["review_status"] != "approved" || d["document_id"] != reviewed.ID {
		t.Errorf("document.review_completed: %v", d)
	}
	// A penalty's record and a correction are created linked to their
	// penalty: the event says which.
	penaltyTxs := func(d []hookDelivery) []map[string]any {
		var out []map[string]any
		for _, e := range d {
			if e.Type == webhooks.TransactionCreated && (e.Data["transaction_type"] == "penalty" || e.Data["transaction_type"] == "adjustment") {
				out = append(out, e.Data)
			}
		}
		return out
	}
	got = r.waitFor("three penalty records and a correction", func(d []hookDelivery) bool { return len(penaltyTxs(d)) == 4 })
	for _, d := range penaltyTxs(got) {
		if d["penalty_id"] == nil || d["transaction_type"] == "adjustment" && (d["id"] != correction || d["penalty_id"] != late) {
			t.Errorf("finance_transaction.created of a penalty's transaction: %v", d)
		}
	}
}
