package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/units"
)

// The demo's fleet (docs/fleet.md): 40 trucks and 10 light vehicles for
// its 50 drivers and 45 trailers of every type, created by the dispatcher
// through the fleet service, their documents in every status uploaded
// through the documents service, and the transport units that put the
// first drivers on the road.
const (
	demoTrucks   = 40
	demoVans     = 10
	demoTrailers = 45
	// demoUnits is how many drivers the demo puts in a transport unit.
	demoUnits = 35
)

// demoTruckModels and demoVanModels are makes and models with the
// manufacturer code their VINs begin with.
var (
	demoTruckModels = []struct{ make, model, wmi string }{
		{"Scania", "R 450", "YS2"}, {"Volvo", "FH 500", "YV2"}, {"DAF", "XF 480", "XLR"},
		{"MAN", "TGX 18.470", "WMA"}, {"Mercedes-Benz", "Actros 1845", "WDB"}, {"Iveco", "S-Way 490", "ZCF"},
	}
	demoVanModels = []struct{ make, model, wmi string }{
		{"Škoda", "Octavia Combi", "TMB"}, {"Volkswagen", "Transporter", "WV2"}, {"Ford", "Transit Custom", "WF0"},
		{"Renault", "Master", "VF1"},
	}
	demoTrailerModels = []struct{ make, model, wmi string }{
		{"Schmitz Cargobull", "S.CS", "WSM"}, {"Krone", "Profi Liner", "WKE"}, {"Kögel", "Cargo", "WK0"},
		{"Wielton", "NS 3", "SUD"},
	}
	demoColors = []string{"bílá", "stříbrná", "modrá", "červená", "šedá"}
)

// demoVIN is a VIN of the manufacturer code wmi: 17 characters without
// I, O and Q, unique per n.
func demoVIN(wmi, kind string, n int) string {
	return fmt.Sprintf("%s%s%06d", wmi, kind, 100000+(n*7919)%900000)
}

// createFleet creates the vehicles and trailers as the dispatcher would.
func (d *demo) createFleet(ctx context.Context) error {
	rows, err := d.s.DB.Query(ctx, `SELECT id FROM offices WHERE company_id = $1 ORDER BY is_headquarters DESC`, d.company)
	if err != nil {
		return err
	}
	offices, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return err
	}
	letters := "BCEFHJKLMNPRSTUVXYZ"
	for i := range demoTrucks + demoVans {
		year := 2014 + (i*5)%11
		fields := map[string]any{
			"office_id":   offices[i%len(offices)].String(),
			"status":      "active",
			"year":        year,
			"color":       demoColors[i%len(demoColors)],
			"odometer_km": 20000 + (i*48611)%880000,
		}
		// Praha plates at the head office, Moravian-Silesian ones in Ostrava.
		region := "A"
		if i%2 == 1 {
			region = "T"
		}
		fields["plate_number"] = fmt.Sprintf("%d%s%c %04d", 1+i%9, region, letters[i%len(letters)], 1000+(i*379)%9000)
		fields["first_registration_date"] = fmt.Sprintf("%d-%02d-%02d", year, 1+i%12, 1+(i*7)%28)
		if i < demoTrucks {
			m := demoTruckModels[i%len(demoTruckModels)]
			fields["type"], fields["make"], fields["model"] = "lkv", m.make, m.model
			fields["vin"] = demoVIN(m.wmi, "R4X2A0B7", i)
			fields["fuel_type"], fields["emission_class"] = "diesel", []string{"EURO6", "EURO6", "EURO6", "EURO5"}[i%4]
			fields["gross_weight_kg"], fields["payload_kg"], fields["axles"] = 18000, 11000, 2
			switch {
			case i == demoTrucks-1:
				fields["status"] = "sold"
			case i == demoTrucks-3:
				fields["status"] = "inactive"
			case i%13 == 5:
				fields["status"] = "in_service"
			}
			if i%8 == 3 {
				fields["tags"] = []string{"adr"}
				fields["notes"] = "Výbava ADR: hasicí přístroje 2× 6 kg, výstražné tabule."
			}
		} else {
			j := i - demoTrucks
			m := demoVanModels[j%len(demoVanModels)]
			fields["type"], fields["make"], fields["model"] = "pkv", m.make, m.model
			fields["vin"] = demoVIN(m.wmi, "ZZZ3C0K8", i)
			fields["fuel_type"] = []string{"diesel", "petrol", "hybrid", "diesel", "electric"}[j%5]
			if fields["fuel_type"] != "electric" {
				fields["emission_class"] = "EURO6"
			}
			fields["gross_weight_kg"], fields["payload_kg"], fields["axles"] = 3500, 1100, 2
			fields["assignment_mode"] = fleet.AssignmentModes[j%len(fleet.AssignmentModes)]
			if j == demoVans-1 {
				fields["status"] = "inactive"
			}
		}
		in, err := fleetInput(fields)
		if err != nil {
			return err
		}
		v, err := d.s.Fleet.CreateVehicle(ctx, d.dispatcher, func(i *fleet.Input) error { *i = in; return nil })
		if err != nil {
			return fmt.Errorf("vehicle %s: %w", fields["plate_number"], err)
		}
		d.vehicles = append(d.vehicles, demoRecord{id: v.ID, kind: documents.HolderVehicle, tags: v.Tags, active: v.Status == "active", lkv: v.Type == "lkv"})
	}
	for i := range demoTrailers {
		typ := fleet.TrailerTypes[i%len(fleet.TrailerTypes)]
		m := demoTrailerModels[i%len(demoTrailerModels)]
		year := 2013 + (i*3)%12
		fields := map[string]any{
			"office_id":               offices[i%len(offices)].String(),
			"type":                    typ,
			"status":                  "active",
			"plate_number":            fmt.Sprintf("%dA%d %04d", 1+i%9, i%10, 2000+(i*211)%7000),
			"vin":                     demoVIN(m.wmi, "S01PX3L5", i),
			"make":                    m.make,
			"model":                   m.model,
			"year":                    year,
			"color":                   demoColors[(i+2)%len(demoColors)],
			"gross_weight_kg":         39000,
			"payload_kg":              27000,
			"axles":                   3,
			"first_registration_date": fmt.Sprintf("%d-%02d-%02d", year, 1+(i*5)%12, 1+(i*3)%28),
			"volume_m3":               map[string]json.Number{"standard": "90", "mega": "100", "frigo": "86.5", "van": "88", "tautliner": "92"}[typ],
		}
		if typ == "frigo" {
			// A refrigerated trailer; it carries the frigo tag, so its
			// ATP certificate is required.
			fields["has_refrigeration"] = true
			fields["temperature_min"], fields["temperature_max"] = json.Number("-25"), json.Number("12")
		}
		switch {
		case i == demoTrailers-1:
			fields["status"] = "inactive"
		case i%11 == 4:
			fields["status"] = "in_service"
		}
		if i%7 == 2 {
			fields["tags"] = []string{"adr"}
		}
		in, err := fleetInput(fields)
		if err != nil {
			return err
		}
		t, err := d.s.Fleet.CreateTrailer(ctx, d.dispatcher, func(i *fleet.Input) error { *i = in; return nil })
		if err != nil {
			return fmt.Errorf("trailer %s: %w", fields["plate_number"], err)
		}
		d.trailers = append(d.trailers, demoRecord{id: t.ID, kind: documents.HolderTrailer, tags: t.Tags, active: t.Status == "active"})
	}
	return nil
}

// demoRecord is a demo vehicle or trailer as its documents and units need
// it.
type demoRecord struct {
	id     uuid.UUID
	kind   string // documents.HolderVehicle, HolderTrailer
	tags   []string
	active bool
	lkv    bool // a truck
}

func fleetInput(fields map[string]any) (fleet.Input, error) {
	var in fleet.Input
	for k, v := range fields {
		if err := in.Set(k, v); err != nil {
			return in, err
		}
	}
	return in, nil
}

// fleetDocuments uploads the vehicles' and trailers' documents as the
// dispatcher would, spread over every status as the drivers' are: the
// first records keep their required documents valid, so the lists show
// ready vehicles and trailers too. A registration certificate has no
// expiry: it is valid once uploaded.
func (d *demo) fleetDocuments(ctx context.Context) error {
	for _, group := range [][]demoRecord{d.vehicles, d.trailers} {
		if len(group) == 0 {
			continue
		}
		rules, err := documents.LoadHolderRules(ctx, d.s.DB, d.company, group[0].kind)
		if err != nil {
			return err
		}
		for i, r := range group {
			docs, err := d.s.Documents.FleetRead(ctx, d.dispatcher, r.kind, r.id)
			if err != nil {
				return err
			}
			for t, doc := range docs {
				state := documentPlan[(i*5+t*3)%len(documentPlan)]
				if i < 30 && demoRequired(rules, doc.Type, r.tags) {
					state = "valid"
				}
				noExpiry := doc.Type == "registration_certificate"
				if noExpiry && state != "no_data" {
					state = "valid"
				}
				var until *civil.Date
				switch state {
				case "no_data":
					continue
				case "valid":
					u := d.today.AddDays(60 + (i*41+t*67)%600)
					until = &u
				case "warning":
					u := d.today.AddDays(16 + (i+t)%14)
					until = &u
				case "expiring_soon":
					u := d.today.AddDays(2 + (i+t)%12)
					until = &u
				case "expired":
					u := d.today.AddDays(-(3 + (i*7+t)%80))
					until = &u
				}
				versions := 1
				if (i+t)%9 == 0 && !noExpiry {
					versions = 2 // renewed: last year's certificate kept as history
				}
				for v := 1; v <= versions; v++ {
					meta := map[string]string{"number": fmt.Sprintf("%s-%06d", strings.ToUpper(doc.Type[:3]), 200000+i*89+t), "country": "CZ"}
					if !noExpiry {
						u := until.AddMonths(-12 * (versions - v))
						meta["valid_from"], meta["valid_until"] = u.AddMonths(-12).String(), u.String()
					}
					body, err := demoUpload(doc.Type, v, meta)
					if err != nil {
						return err
					}
					if _, err := d.s.Documents.Upload(ctx, d.dispatcher, uuid.Nil, doc.ID, func() (*multipart.Reader, error) { return body, nil }); err != nil {
						return fmt.Errorf("upload %s of %s %s: %w", doc.Type, r.kind, r.id, err)
					}
				}
			}
		}
	}
	return nil
}

// demoRequired reports whether a record with these tags needs documents
// of the type to be ready.
func demoRequired(rules []documents.Rule, docType string, tags []string) bool {
	for _, r := range rules {
		if r.DocumentType != docType || !r.Required {
			continue
		}
		tag, isTag := strings.CutPrefix(r.RequiredFor, "tag:")
		return !isTag || slices.Contains(tags, tag)
	}
	return false
}

// transportUnits puts drivers on the road as the dispatcher does, through
// the units service: every driver who has not left with a vehicle that is
// neither sold nor out of use (in service too), a truck with a trailer that
// is not out of use but for every fifth, so that the board shows units in
// every state: ready, not ready for each reason (a driver on leave, a
// vehicle or trailer in service, a document expired or missing). Then the
// technical inspection of a few ready units' vehicles runs out within the
// week (a metadata change through the documents service), so that some
// units stop being ready soon.
func (d *demo) transportUnits(ctx context.Context) error {
	var vehicles, trailers []uuid.UUID
	rows, err := d.s.DB.Query(ctx, `SELECT id FROM vehicles WHERE company_id = $1 AND status IN ('active', 'in_service')
		AND deleted_at IS NULL ORDER BY type, internal_seq`, d.company)
	if err != nil {
		return err
	}
	if vehicles, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		return err
	}
	if rows, err = d.s.DB.Query(ctx, `SELECT id FROM trailers WHERE company_id = $1 AND status IN ('active', 'in_service')
		AND deleted_at IS NULL ORDER BY internal_seq`, d.company); err != nil {
		return err
	}
	if trailers, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		return err
	}
	rows, err = d.s.DB.Query(ctx, `SELECT id FROM drivers WHERE company_id = $1 AND status IN ('active', 'on_leave') AND deleted_at IS NULL
		ORDER BY internal_seq LIMIT $2`, d.company, demoUnits)
	if err != nil {
		return err
	}
	drivers, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return err
	}
	var ready []units.Unit
	next := 0
	for i, driverID := range drivers {
		if i >= len(vehicles) {
			break
		}
		in := units.AssignInput{DriverID: &driverID, VehicleID: &vehicles[i]}
		if i%5 != 4 && next < len(trailers) {
			in.TrailerID = &trailers[next]
			next++
		}
		assigned := d.today.AddDays(-9 * (i + 1)).Time()
		in.AssignedAt = &assigned
		u, err := d.s.Units.Assign(ctx, d.dispatcher, func(x *units.AssignInput) error { *x = in; return nil })
		if apperr.KindOf(err) == apperr.KindValidation {
			// A van takes no trailer: it runs solo.
			in.TrailerID = nil
			u, err = d.s.Units.Assign(ctx, d.dispatcher, func(x *units.AssignInput) error { *x = in; return nil })
		}
		if err != nil {
			return fmt.Errorf("assign driver %s: %w", driverID, err)
		}
		if u.IsReady {
			ready = append(ready, u)
		}
	}
	// Every third ready unit's vehicle has its inspection run out within
	// the week: ready still, but not for long.
	for i := 0; i < len(ready); i += 3 {
		var doc uuid.UUID
		if err := d.s.DB.QueryRow(ctx, `SELECT id FROM driver_documents WHERE vehicle_id = $1 AND type = 'technical_inspection'`,
			ready[i].Vehicle.ID).Scan(&doc); err != nil {
			return err
		}
		until := d.today.AddDays(2 + i%5)
		if _, err := d.s.Documents.Update(ctx, d.dispatcher, doc, func(body *map[string]json.RawMessage) error {
			*body = map[string]json.RawMessage{"valid_from": json.RawMessage(`"` + until.AddMonths(-12).String() + `"`),
				"valid_until": json.RawMessage(`"` + until.String() + `"`)}
			return nil
		}); err != nil {
			return fmt.Errorf("inspection of vehicle %s: %w", ready[i].Vehicle.ID, err)
		}
	}
	return nil
}
