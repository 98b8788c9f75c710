package alerts_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestFleetDocumentAlerts: a vehicle's technical inspection entering its
// lead window (30 days, the vehicles' rule) alerts the admins and the
// dispatchers, not the HR managers; the alert names the vehicle.
func TestFleetDocumentAlerts(t *testing.T) {
	st := newSetup(t)
	dispatcher := uuid.New()
	if _, err := st.db.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, role)
		VALUES ($1, $2, $3, 'fleet@example.test', 'dispatcher')`, dispatcher, st.f.Company, dispatcher.String()); err != nil {
		t.Fatal(err)
	}
	st.f.Exec(`UPDATE driver_documents SET valid_until = NULL WHERE driver_id = $1`, st.driver) // the driver: nothing to say
	vehicle := uuid.New()
	st.f.Exec(`INSERT INTO vehicles (id, company_id, internal_number, internal_seq, type, plate_number, status)
		VALUES ($1, $2, 'VEH-0001', 1, 'lkv', '1AB 2345', 'active')`, vehicle, st.f.Company)
	// Every document of the truck has a file; the inspection ends on
	// 2026-06-30, the others have no expiry.
	st.f.Exec(`INSERT INTO driver_documents (company_id, holder_type, vehicle_id, type)
		SELECT $1, 'vehicle', $2, b.type FROM konvoj_builtin_document_types('vehicle') b`, st.f.Company, vehicle)
	st.f.Exec(`WITH f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				storage_path, storage_disk, hash_sha256)
			SELECT company_id, id, 'v1_' || gen_random_uuid() || '.pdf', 'scan.pdf', 'application/pdf', 10, 1, 'x', 'local', repeat('a', 64)
			FROM driver_documents WHERE vehicle_id = $1 RETURNING id, document_id
		)
		UPDATE driver_documents d SET current_file_id = f.id,
			valid_until = CASE WHEN d.type = 'technical_inspection' THEN DATE '2026-06-30' END
		FROM f WHERE f.document_id = d.id`, vehicle)

	res := scan(t, st.s, st.f.Company, "2026-05-31") // 30 days left
	if got := strings.Join(stages(res), ","); got != "technical_inspection:lead" {
		t.Fatalf("stages %q, want technical_inspection:lead", got)
	}
	a := res.Alerts[0]
	if a.HolderType != "vehicle" || a.HolderID != vehicle || a.DriverID != uuid.Nil || a.DriverName != "1AB 2345" || a.InternalNumber != "VEH-0001" {
		t.Errorf("alert %+v", a)
	}
	if n := count(t, st.db, `SELECT count(*) FROM document_alerts WHERE vehicle_id = $1 AND holder_type = 'vehicle' AND holder_id = $1 AND driver_id IS NULL`, vehicle); n != 1 {
		t.Errorf("%d alert rows of the vehicle, want 1", n)
	}
	for user, want := range map[uuid.UUID]int{st.admin: 1, dispatcher: 1, st.hr: 0, st.drvUser: 0} {
		if n := count(t, st.db, `SELECT count(*) FROM notifications WHERE user_id = $1`, user); n != want {
			t.Errorf("user %s: %d notifications, want %d", user, n, want)
		}
	}
	by := map[string]string{}
	for _, e := range res.Emails {
		by[e.Recipient] = e.Text
	}
	if _, ok := by["hr@example.test"]; ok {
		t.Error("the HR manager got a digest of a vehicle's document")
	}
	link := base + "/vehicles/" + vehicle.String()
	for _, r := range []string{"fleet@example.test", "disp@example.test", "admin@example.test"} {
		if text := by[r]; !strings.Contains(text, "VEH-0001 1AB 2345") || !strings.Contains(text, link) {
			t.Errorf("%s digest: %q", r, text)
		}
	}
	if again := scan(t, st.s, st.f.Company, "2026-06-01"); len(again.Alerts) != 0 {
		t.Errorf("the next day alerted again: %v", stages(again))
	}
	// Missing: a required type without a file.
	st.f.Exec(`UPDATE driver_documents SET current_file_id = NULL WHERE vehicle_id = $1 AND type = 'liability_insurance'`, vehicle)
	if got := strings.Join(stages(scan(t, st.s, st.f.Company, "2026-06-02")), ","); got != "liability_insurance:missing" {
		t.Errorf("stages %q, want liability_insurance:missing", got)
	}
}
