package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// driver_id narrows the audit log to one driver: its own rows and those of
// its documents, transactions, penalties and periods; never another
// driver's, nor another company's.
func TestAuditLogFilteredToOneDriver(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	admin := env.As(company, auth.RoleAdmin)
	ctx := context.Background()
	// Last month: a period can be closed once its last day has passed.
	day := pragueMonth(1).AddDays(9).String()

	// Everything that can happen to a driver, for Jan and for Eva.
	activity := func(email string) uuid.UUID {
		d := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": email, "email": email})
		hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"phone": "+420 777 000 001"}).Expect(http.StatusOK)
		var doc uuid.UUID
		if err := env.DB.QueryRow(ctx, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, d.ID).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		upload(t, hr, doc, filePart("pas.pdf", samplePDF(t, 100)), field("valid_until", "2030-01-01")).Expect(http.StatusCreated)
		hr.Put("/api/v0/documents/"+doc.String(), map[string]any{"number": "P1"}).Expect(http.StatusOK)
		hr.Post("/api/v0/drivers/"+d.ID.String()+"/finance", map[string]any{"transaction_type": "bonus", "amount": "100.00",
			"transaction_date": day}).Expect(http.StatusCreated)
		hr.Post("/api/v0/drivers/"+d.ID.String()+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "50.00",
			"incident_date": day, "description": "fast"}).Expect(http.StatusCreated)
		var period uuid.UUID
		if err := env.DB.QueryRow(ctx, `SELECT id FROM finance_periods WHERE driver_id = $1`, d.ID).Scan(&period); err != nil {
			t.Fatal(err)
		}
		admin.Post("/api/v0/drivers/"+d.ID.String()+"/finance/periods/"+period.String()+"/close", map[string]any{"force": true}).Expect(http.StatusOK)
		return d.ID
	}
	jan, eva := activity("jan@example.cz"), activity("eva@example.cz")
	// Deleting Jan keeps his history reachable.
	hr.Delete("/api/v0/drivers/" + jan.String()).Expect(http.StatusNoContent)
	other := env.Company("Other", "free")
	env.As(other, auth.RoleHRManager).Post("/api/v0/drivers", map[string]any{"first_name": "O", "last_name": "O", "email": "jan@example.cz"}).
		Expect(http.StatusCreated)

	type row struct {
		EntityType string    `json:"entity_type"`
		EntityID   uuid.UUID `json:"entity_id"`
		Action     string    `json:"action"`
	}
	list := func(query string) ([]row, int) {
		var p struct {
			Data  []row `json:"data"`
			Total int   `json:"total"`
		}
		hr.Get("/api/v0/audit-logs?per_page=100&" + query).Expect(http.StatusOK).Decode(&p)
		return p.Data, p.Total
	}
	// The rows about a driver, by the tables, as the filter's reference.
	var want int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM audit_logs a WHERE a.company_id = $1 AND (a.entity_id = $2
		OR a.entity_id IN (SELECT id FROM driver_documents WHERE driver_id = $2)
		OR a.entity_id IN (SELECT id FROM finance_transactions WHERE driver_id = $2)
		OR a.entity_id IN (SELECT id FROM penalties WHERE driver_id = $2)
		OR a.entity_id IN (SELECT id FROM finance_periods WHERE driver_id = $2))`, company, jan).Scan(&want); err != nil {
		t.Fatal(err)
	}

	rows, total := list("driver_id=" + jan.String())
	if total != want || len(rows) != want {
		t.Fatalf("jan: %d rows (total %d), want %d", len(rows), total, want)
	}
	var kinds, actions []string
	for _, r := range rows {
		if !slices.Contains(kinds, r.EntityType) {
			kinds = append(kinds, r.EntityType)
		}
		actions = append(actions, r.Action)
	}
	slices.Sort(kinds)
	if !slices.Equal(kinds, []string{"document", "driver", "finance_period", "finance_transaction", "penalty"}) {
		t.Errorf("jan: kinds %v", kinds)
	}
	for _, a := range []string{"created", "updated", "deleted", "document.uploaded", "document.updated", "penalty.created", "period.closed"} {
		if !slices.Contains(actions, a) {
			t.Errorf("jan: no %s row in %v", a, actions)
		}
	}
	if _, all := list(""); all <= total {
		t.Errorf("the filter kept everything: %d of %d", total, all)
	}
	// Several drivers: OR; with another filter: AND.
	if _, both := list("driver_id=" + jan.String() + "," + eva.String()); both != 2*want-1 { // Eva was not deleted
		t.Errorf("jan or eva: %d rows, want %d", both, 2*want-1)
	}
	if rows, _ := list("entity_type=penalty&driver_id=" + jan.String()); len(rows) != 1 || rows[0].Action != "penalty.created" {
		t.Errorf("jan's penalties: %v", rows)
	}
	if _, n := list("driver_id=" + uuid.NewString()); n != 0 {
		t.Errorf("an unknown driver: %d rows", n)
	}
	hr.Get("/api/v0/audit-logs?driver_id=jan").ExpectError(http.StatusBadRequest, "BadRequest")
	// Another company's HR asking about Jan sees nothing of ours.
	var foreign struct{ Total int }
	env.As(other, auth.RoleHRManager).Get("/api/v0/audit-logs?driver_id=" + jan.String()).Expect(http.StatusOK).Decode(&foreign)
	if foreign.Total != 0 {
		t.Errorf("another company sees %d of our rows", foreign.Total)
	}
}
