package webtest

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
)

// World is what the authorization tests aim at: two companies, each with two
// drivers that have a document with a file, a transaction, a finance period
// and a penalty with an evidence file. Everything is made through the API, as a client would.
type World struct {
	Home, Away Tenant
}

// Tenant is one company of the World.
type Tenant struct {
	Company uuid.UUID
	Admin   *Caller
	// Drivers[0] is the record a driver caller of the company is linked to
	// (by e-mail); Drivers[1] is another driver of the same company.
	Drivers [2]Records
	// Outbox is an e-mail of the company's outbox. The daily scan writes
	// them and no API does, so the world writes one directly.
	Outbox uuid.UUID
	// Import is a finished driver import of the company, written directly.
	Import uuid.UUID
	// FleetImport is a checked import of vehicles (KindFleetImport).
	FleetImport uuid.UUID
	// Webhook is a webhook endpoint of the company and Delivery a delivery
	// to it, written directly (the API refuses the test's local URLs).
	Webhook, Delivery uuid.UUID
}

// Records are one driver's records, by kind.
type Records struct {
	Driver, Document, File, Transaction, Period, Penalty, Evidence uuid.UUID
	// Vehicle and Trailer are the driver's active transport unit's;
	// VehicleDocument and TrailerDocument their technical inspections.
	Vehicle, Trailer                 uuid.UUID
	VehicleDocument, TrailerDocument uuid.UUID
	// Unit is the driver's active transport unit.
	Unit            uuid.UUID
	Email, LastName string
}

// Record kinds: the names the authorization tables use for path ids.
const (
	KindDriver      = "driver"
	KindDocument    = "document"
	KindFile        = "file"
	KindTransaction = "transaction"
	KindPeriod      = "period"
	KindPenalty     = "penalty"
	KindEvidence    = "evidence"
	KindCompany     = "company"
	KindOutbox      = "outbox"
	KindImport      = "import"
	// KindFleetImport is an import of vehicles, which the fleet's roles read.
	KindFleetImport = "fleet_import"
	KindWebhook     = "webhook"
	KindDelivery    = "delivery"
	KindVehicle     = "vehicle"
	KindTrailer     = "trailer"
	// KindVehicleDocument and KindTrailerDocument are the technical
	// inspections of the driver's unit's vehicle and trailer.
	KindVehicleDocument = "vehicle_document"
	KindTrailerDocument = "trailer_document"
	// KindUser is the tenant's admin user.
	KindUser = "user"
	// KindUnit is the driver's active transport unit.
	KindUnit = "unit"
)

// ID is the record of the kind (KindCompany: the tenant's company).
func (t Tenant) ID(driver int, kind string) uuid.UUID {
	r := t.Drivers[driver]
	switch kind {
	case KindDriver:
		return r.Driver
	case KindDocument:
		return r.Document
	case KindFile:
		return r.File
	case KindTransaction:
		return r.Transaction
	case KindPeriod:
		return r.Period
	case KindPenalty:
		return r.Penalty
	case KindEvidence:
		return r.Evidence
	case KindVehicle:
		return r.Vehicle
	case KindTrailer:
		return r.Trailer
	case KindVehicleDocument:
		return r.VehicleDocument
	case KindTrailerDocument:
		return r.TrailerDocument
	case KindCompany:
		return t.Company
	case KindOutbox:
		return t.Outbox
	case KindImport:
		return t.Import
	case KindFleetImport:
		return t.FleetImport
	case KindWebhook:
		return t.Webhook
	case KindDelivery:
		return t.Delivery
	case KindUser:
		return t.Admin.UserID
	case KindUnit:
		return r.Unit
	}
	panic("webtest: unknown record kind " + kind)
}

// World builds the two companies and their records.
func (e *Env) World() *World {
	e.T.Helper()
	w := &World{}
	for i, t := range []*Tenant{&w.Home, &w.Away} {
		name := []string{"Home", "Away"}[i]
		t.Company = e.Company(name+" Transport", "enterprise")
		t.Admin = e.As(t.Company, auth.RoleAdmin)
		for d := range t.Drivers {
			t.Drivers[d] = e.records(t.Admin, fmt.Sprintf("%s%dová", name, d))
		}
		if err := e.DB.QueryRow(context.Background(), `INSERT INTO outbox (company_id, kind, recipient, language, subject, text_body, html_body)
			VALUES ($1, 'digest', 'hr@example.test', 'en', $2, 'text', '<p>html</p>') RETURNING id`,
			t.Company, name+" digest").Scan(&t.Outbox); err != nil {
			e.T.Fatalf("world: outbox e-mail: %v", err)
		}
		if err := e.DB.QueryRow(context.Background(), `INSERT INTO imports (company_id, user_role, status, dry_run, filename)
			VALUES ($1, 'admin', 'done', true, 'drivers.csv') RETURNING id`, t.Company).Scan(&t.Import); err != nil {
			e.T.Fatalf("world: import: %v", err)
		}
		if err := e.DB.QueryRow(context.Background(), `INSERT INTO imports (company_id, user_role, status, dry_run, filename, kind)
			VALUES ($1, 'dispatcher', 'done', true, 'vehicles.csv', 'vehicles') RETURNING id`, t.Company).Scan(&t.FleetImport); err != nil {
			e.T.Fatalf("world: fleet import: %v", err)
		}
		if err := e.DB.QueryRow(context.Background(), `WITH w AS (
				INSERT INTO webhook_endpoints (company_id, url, events, secret, enabled)
				VALUES ($1, 'https://hooks.example.test/konvoj', '{*}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', false) RETURNING id),
			ev AS (INSERT INTO webhook_events (company_id, type, occurred_at, body)
				VALUES ($1, 'webhook.test', now(), '{}') RETURNING id),
			d AS (INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, attempts)
				SELECT $1, w.id, ev.id, 'delivered', 1 FROM w, ev RETURNING id, endpoint_id)
			SELECT endpoint_id, id FROM d`, t.Company).Scan(&t.Webhook, &t.Delivery); err != nil {
			e.T.Fatalf("world: webhook: %v", err)
		}
	}
	return w
}

// records creates a driver with a file, a transaction (and so a period)
// and a penalty with an evidence file.
func (e *Env) records(admin *Caller, lastName string) Records {
	e.T.Helper()
	r := Records{LastName: lastName, Email: strings.ToLower(lastName) + "-" + uuid.NewString()[:8] + "@example.test"}
	var drv struct{ ID uuid.UUID }
	admin.Post("/api/v0/drivers", map[string]any{"first_name": "Eva", "last_name": lastName, "email": r.Email}).
		Expect(http.StatusCreated).Decode(&drv)
	r.Driver = drv.ID
	base := "/api/v0/drivers/" + r.Driver.String()

	var docs struct{ Data []struct{ ID uuid.UUID } }
	admin.Get(base + "/documents").Expect(http.StatusOK).Decode(&docs)
	r.Document = docs.Data[0].ID
	var file struct{ ID uuid.UUID }
	body, header := PDFUpload("scan.pdf")
	admin.Send(http.MethodPost, "/api/v0/documents/"+r.Document.String()+"/files", body, header).
		Expect(http.StatusCreated).Decode(&file)
	r.File = file.ID

	var tx struct{ ID uuid.UUID }
	admin.Post(base+"/finance", map[string]any{"transaction_type": "bonus", "amount": "100.00", "transaction_date": Today()}).
		Expect(http.StatusCreated).Decode(&tx)
	r.Transaction = tx.ID
	var periods struct{ Data []struct{ ID uuid.UUID } }
	admin.Get(base + "/finance/periods").Expect(http.StatusOK).Decode(&periods)
	r.Period = periods.Data[0].ID
	var pen struct{ ID uuid.UUID }
	admin.Post(base+"/penalties", map[string]any{"penalty_type": "other", "amount": "10.00", "incident_date": Today(), "description": "x"}).
		Expect(http.StatusCreated).Decode(&pen)
	r.Penalty = pen.ID
	var ev struct{ ID uuid.UUID }
	body, header = PDFUpload("ticket.pdf")
	admin.Send(http.MethodPost, "/api/v0/penalties/"+r.Penalty.String()+"/evidence", body, header).
		Expect(http.StatusCreated).Decode(&ev)
	r.Evidence = ev.ID

	var veh, trl struct{ ID uuid.UUID }
	admin.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "V" + uuid.NewString()[:8]}).
		Expect(http.StatusCreated).Decode(&veh)
	admin.Post("/api/v0/trailers", map[string]any{"type": "standard", "plate_number": "T" + uuid.NewString()[:8]}).
		Expect(http.StatusCreated).Decode(&trl)
	r.Vehicle, r.Trailer = veh.ID, trl.ID
	if err := e.DB.QueryRow(context.Background(), `INSERT INTO transport_units (company_id, driver_id, vehicle_id, trailer_id)
		VALUES ($1, $2, $3, $4) RETURNING id`, admin.CompanyID, r.Driver, r.Vehicle, r.Trailer).Scan(&r.Unit); err != nil {
		e.T.Fatalf("world: transport unit: %v", err)
	}
	if err := e.DB.QueryRow(context.Background(), `SELECT
			(SELECT id FROM driver_documents WHERE vehicle_id = $1 AND type = 'technical_inspection'),
			(SELECT id FROM driver_documents WHERE trailer_id = $2 AND type = 'technical_inspection')`,
		r.Vehicle, r.Trailer).Scan(&r.VehicleDocument, &r.TrailerDocument); err != nil {
		e.T.Fatalf("world: fleet documents: %v", err)
	}
	return r
}

// Today is today's date in the test companies' time zone (Europe/Prague).
func Today() string {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		loc = time.UTC
	}
	return time.Now().In(loc).Format(time.DateOnly)
}

// PDFUpload is a multipart body with a small PDF in the part "file", and
// its Content-Type header.
func PDFUpload(name string) (*bytes.Buffer, http.Header) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write([]byte("%PDF-1.7\n% webtest\n"))
	_ = w.Close()
	h := http.Header{}
	h.Set("Content-Type", w.FormDataContentType())
	return &body, h
}

// Checksum is a digest of every row of every table in the public schema
// (the migrations' bookkeeping and River's job tables left out): two equal
// checksums mean a request changed nothing.
func (e *Env) Checksum() string {
	e.T.Helper()
	ctx := context.Background()
	rows, err := e.DB.Query(ctx, `
		SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
			AND table_name NOT LIKE 'river%' AND table_name NOT LIKE 'goose%' AND table_name <> 'schema_migrations'
		ORDER BY table_name`)
	if err != nil {
		e.T.Fatalf("webtest: list tables: %v", err)
	}
	var parts []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			e.T.Fatalf("webtest: list tables: %v", err)
		}
		// Table names come from the catalog, not from input.
		parts = append(parts, fmt.Sprintf(`SELECT %[1]s || ':' || md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM %[2]s t`,
			"'"+name+"'", `"`+name+`"`))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		e.T.Fatalf("webtest: list tables: %v", err)
	}
	var sum string
	if err := e.DB.QueryRow(ctx, `SELECT string_agg(x, ' ' ORDER BY x) FROM (`+strings.Join(parts, " UNION ALL ")+`) s(x)`).Scan(&sum); err != nil {
		e.T.Fatalf("webtest: checksum: %v", err)
	}
	return sum
}

// Refusal is one of the three ways the generated authorization tests of
// both fronts (web/api and web/pages) expect a request to be refused.
type Refusal string

// The refusals every route is tried with.
const (
	// OtherCompany: an admin of one company names another company's records
	// (403 AccessDenied).
	OtherCompany Refusal = "another company's record"
	// RoleRefused: a role the permission matrix refuses, on its own
	// company's records (403 Forbidden).
	RoleRefused Refusal = "a role the matrix refuses"
	// OtherDriver: a driver caller names another driver's records of its
	// company (403 AccessDenied).
	OtherDriver Refusal = "a driver touching another driver"
)

// Refusals lists the three refusals in the order the tests try them.
var Refusals = []Refusal{OtherCompany, RoleRefused, OtherDriver}
