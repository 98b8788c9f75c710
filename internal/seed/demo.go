package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/internal/tenants"
)

// DemoCompanyName is the demo tenant's name.
const DemoCompanyName = "Demo Transport s.r.o."

// Demo markers in companies.settings.seed: a run that stopped half way
// leaves "demo-incomplete", a finished one "demo".
const (
	demoMarker           = "demo"
	demoIncompleteMarker = "demo-incomplete"
)

// ErrDemoIncomplete means an earlier seed-demo run stopped half way.
var ErrDemoIncomplete = errors.New("an earlier seed-demo run stopped half way; drop the database (make run: remove ./data) and run it again")

// DemoServices are the services the demo data goes through, so it obeys
// every rule the API does (numbers, periods, statuses, audit rows).
type DemoServices struct {
	DB *pgxpool.Pool
	services.Set
}

// DemoUser is a demo sign-in.
type DemoUser struct {
	ID    uuid.UUID
	Email string
	Name  string
	Role  auth.Role
}

// DemoResult says what the demo holds.
type DemoResult struct {
	CompanyID uuid.UUID
	Created   bool // false when the demo already existed
	Users     []DemoUser
	Drivers   int
}

// demoUsers are one user per role; the driver user's e-mail is the first
// demo driver's, so it signs in to its own record.
var demoUsers = []struct {
	role        auth.Role
	email       string
	first, last string
	lang        string
}{
	{auth.RoleAdmin, "admin@demo-transport.cz", "Alena", "Marková", "cs"},
	{auth.RoleHRManager, "hr@demo-transport.cz", "Hana", "Růžičková", "cs"},
	{auth.RoleAccountant, "ucetni@demo-transport.cz", "Petra", "Šimková", "cs"},
	{auth.RoleDispatcher, "dispecink@demo-transport.cz", "Roman", "Kříž", "cs"},
	{auth.RoleDriver, "jan.novak@demo-transport.cz", "Jan", "Novák", "en"},
}

// demoDrivers: realistic Czech, Slovak, Polish, Ukrainian and Romanian
// names, with their citizenship.
var demoDrivers = []struct{ first, last, country string }{
	{"Jan", "Novák", "CZ"}, {"Jiří", "Dvořák", "CZ"}, {"Tomáš", "Procházka", "CZ"}, {"Lukáš", "Černý", "CZ"},
	{"Ondřej", "Kučera", "CZ"}, {"Pavel", "Veselý", "CZ"}, {"Martin", "Horák", "CZ"}, {"Petr", "Němec", "CZ"},
	{"Zdeněk", "Pokorný", "CZ"}, {"Michal", "Růžička", "CZ"}, {"Radek", "Beneš", "CZ"}, {"Václav", "Fiala", "CZ"},
	{"Jaroslav", "Sedláček", "CZ"}, {"Miroslav", "Doležal", "CZ"}, {"Karel", "Zeman", "CZ"},
	{"Ján", "Horváth", "SK"}, {"Marián", "Kováč", "SK"}, {"Peter", "Varga", "SK"}, {"Dušan", "Tóth", "SK"},
	{"Ľubomír", "Baláž", "SK"}, {"Juraj", "Šimko", "SK"}, {"Štefan", "Lukáč", "SK"},
	{"Piotr", "Wiśniewski", "PL"}, {"Krzysztof", "Wójcik", "PL"}, {"Paweł", "Kamiński", "PL"}, {"Tomasz", "Lewandowski", "PL"},
	{"Łukasz", "Zieliński", "PL"}, {"Grzegorz", "Szymański", "PL"}, {"Michał", "Woźniak", "PL"}, {"Marek", "Dąbrowski", "PL"},
	{"Andrii", "Shevchenko", "UA"}, {"Oleksandr", "Kovalenko", "UA"}, {"Dmytro", "Bondarenko", "UA"}, {"Serhii", "Tkachenko", "UA"},
	{"Mykola", "Kravchenko", "UA"}, {"Vasyl", "Oliynyk", "UA"}, {"Yurii", "Melnyk", "UA"}, {"Ihor", "Savchenko", "UA"},
	{"Bohdan", "Marchenko", "UA"}, {"Taras", "Rudenko", "UA"},
	{"Ion", "Popescu", "RO"}, {"Andrei", "Ionescu", "RO"}, {"Mihai", "Popa", "RO"}, {"Gheorghe", "Rădulescu", "RO"},
	{"Constantin", "Dumitrescu", "RO"}, {"Vasile", "Stoica", "RO"}, {"Florin", "Munteanu", "RO"}, {"Cătălin", "Stănescu", "RO"},
	{"Ștefan", "Gheorghiu", "RO"}, {"Alexandru", "Matei", "RO"},
}

// Demo creates the demo company once: offices, a user of each role, about
// 50 drivers with documents in every status (real small PDF and PNG files),
// 50 vehicles and 45 trailers with theirs, transport units,
// six months of finance transactions with paid periods, penalties in every
// state, orders and six months of ratings. A second run changes nothing.
func Demo(ctx context.Context, s DemoServices, now time.Time) (DemoResult, error) {
	res := DemoResult{}
	var marker string
	err := s.DB.QueryRow(ctx, `SELECT id, settings->>'seed' FROM companies WHERE name = $1 AND settings ? 'seed' ORDER BY created_at LIMIT 1`,
		DemoCompanyName).Scan(&res.CompanyID, &marker)
	switch {
	case err == nil && marker == demoMarker:
		if err := repairDemoUsers(ctx, s.DB, res.CompanyID); err != nil {
			return res, err
		}
		return res, loadDemoSummary(ctx, s.DB, &res)
	case err == nil:
		return res, ErrDemoIncomplete
	case !errors.Is(err, pgx.ErrNoRows):
		return res, fmt.Errorf("find the demo company: %w", err)
	}

	c, err := s.Tenants.Create(ctx, tenants.NewCompany{Name: DemoCompanyName, Tier: "business", Currency: "CZK",
		Country: "CZ", Timezone: "Europe/Prague", Language: "cs"})
	if err != nil {
		return res, err
	}
	res.CompanyID, res.Created = c.ID, true
	if _, err := s.DB.Exec(ctx, `UPDATE companies SET settings = jsonb_build_object('seed', $2::text), vat_number = 'CZ27082440',
		is_vat_payer = true WHERE id = $1`, c.ID, demoIncompleteMarker); err != nil {
		return res, err
	}
	d := &demo{s: s, company: c.ID, loc: mustLocation("Europe/Prague")}
	d.today = civil.DateOf(now.In(d.loc))
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"offices and users", d.officesAndUsers},
		{"drivers", d.createDrivers},
		{"documents", d.documents},
		{"vehicles and trailers", d.createFleet},
		{"vehicle and trailer documents", d.fleetDocuments},
		{"transport units", d.transportUnits},
		{"finance", d.finance},
		{"penalties", d.penalties},
		{"pay periods", d.payPeriods},
		{"orders", d.orders},
		{"ratings", d.ratings},
	}
	for _, st := range steps {
		if err := d.analyze(ctx); err != nil {
			return res, err
		}
		if err := st.fn(ctx); err != nil {
			return res, fmt.Errorf("demo %s: %w", st.name, err)
		}
	}
	if _, err := s.DB.Exec(ctx, `UPDATE companies SET settings = settings || jsonb_build_object('seed', $2::text) WHERE id = $1`,
		c.ID, demoMarker); err != nil {
		return res, err
	}
	return res, loadDemoSummary(ctx, s.DB, &res)
}

// analyze refreshes the planner's statistics of the database. The demo is
// a bulk load into tables that were empty: without statistics (until
// autovacuum gets to them, never where it is off) the planner takes them
// for empty and each service call scans the company's rows, which made the
// seed several times slower (minutes on two cores).
func (d *demo) analyze(ctx context.Context) error {
	if _, err := d.s.DB.Exec(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// demoUserIDs are the ids of the demo users.
func demoUserIDs() []uuid.UUID {
	ids := make([]uuid.UUID, len(demoUsers))
	for i, u := range demoUsers {
		ids[i] = DemoUserID(u.email)
	}
	return ids
}

// repairDemoUsers gives demo users seeded by earlier versions (external_id
// "demo:<e-mail>") the subject their id is derived from, so signing in as
// them finds them instead of colliding with them.
func repairDemoUsers(ctx context.Context, db *pgxpool.Pool, company uuid.UUID) error {
	if _, err := db.Exec(ctx, `UPDATE users SET external_id = id::text, updated_at = now()
		WHERE company_id = $1 AND id = ANY($2) AND external_id <> id::text`, company, demoUserIDs()); err != nil {
		return fmt.Errorf("repair the demo users' subjects: %w", err)
	}
	return nil
}

func loadDemoSummary(ctx context.Context, db *pgxpool.Pool, res *DemoResult) error {
	rows, err := db.Query(ctx, `SELECT id, email, trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')), role FROM users
		WHERE company_id = $1 AND id = ANY($2) ORDER BY array_position(ARRAY['admin','hr_manager','accountant','dispatcher','driver'], role)`,
		res.CompanyID, demoUserIDs())
	if err != nil {
		return err
	}
	res.Users, err = postgres.AppendRows(nil, rows, func(r pgx.Row, u *DemoUser) error {
		return r.Scan(&u.ID, &u.Email, &u.Name, &u.Role)
	})
	if err != nil {
		return err
	}
	return db.QueryRow(ctx, `SELECT count(*) FROM drivers WHERE company_id = $1 AND deleted_at IS NULL`, res.CompanyID).Scan(&res.Drivers)
}

// DemoUserID is the stable id of a demo user (tokens can be minted for it).
// The user's subject (external_id) is this id as text, because a verified
// identity's user id is its subject when that is a UUID (auth.Identity.UserID):
// the printed API tokens, the development sign-in and the just-in-time user
// upsert then all arrive at this one row.
func DemoUserID(email string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("konvoj:demo:"+email))
}

type demo struct {
	s          DemoServices
	company    uuid.UUID
	loc        *time.Location
	today      civil.Date
	admin      auth.Principal
	hr         auth.Principal
	dispatcher auth.Principal
	driverIDs  []uuid.UUID
	vehicles   []demoRecord
	trailers   []demoRecord
}

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

func (d *demo) principal(role auth.Role, email, name string) auth.Principal {
	return auth.Principal{UserID: DemoUserID(email), CompanyID: d.company, Role: role, Email: email, Name: name,
		CompanyTier: "business", CompanyTimezone: "Europe/Prague", CompanyCurrency: "CZK", CompanyCountry: "CZ", Language: "cs",
		IPAddress: "127.0.0.1", UserAgent: "konvoj seed-demo"}
}

func (d *demo) officesAndUsers(ctx context.Context) error {
	if _, err := d.s.DB.Exec(ctx, `INSERT INTO offices (company_id, name, country_code, city, is_headquarters)
		VALUES ($1, 'Praha – centrála', 'CZ', 'Praha', true), ($1, 'Ostrava – pobočka', 'CZ', 'Ostrava', false)`, d.company); err != nil {
		return err
	}
	for _, u := range demoUsers {
		id := DemoUserID(u.email)
		if _, err := d.s.DB.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, first_name, last_name, role, preferred_language)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, id, d.company, id.String(), u.email, u.first, u.last, string(u.role), u.lang); err != nil {
			return err
		}
		switch u.role {
		case auth.RoleAdmin:
			d.admin = d.principal(u.role, u.email, u.first+" "+u.last)
		case auth.RoleHRManager:
			d.hr = d.principal(u.role, u.email, u.first+" "+u.last)
		case auth.RoleDispatcher:
			d.dispatcher = d.principal(u.role, u.email, u.first+" "+u.last)
		}
	}
	return nil
}

func (d *demo) createDrivers(ctx context.Context) error {
	var offices []uuid.UUID
	rows, err := d.s.DB.Query(ctx, `SELECT id FROM offices WHERE company_id = $1 ORDER BY is_headquarters DESC`, d.company)
	if err != nil {
		return err
	}
	if offices, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		return err
	}
	statuses := []string{"active", "active", "active", "active", "active", "active", "active", "on_leave", "active", "inactive"}
	for i, p := range demoDrivers {
		email := strings.ToLower(asciiFold(p.first) + "." + asciiFold(p.last) + "@demo-transport.cz")
		hire := d.today.AddMonths(-(3 + (i*7)%60)).AddDays(-(i % 27))
		var in drivers.Input
		fields := map[string]any{
			"first_name": p.first, "last_name": p.last, "email": email, "citizenship": p.country,
			"phone":                fmt.Sprintf("+420 7%02d %03d %03d", 20+i%20, (i*37)%1000, (i*91)%1000),
			"birth_date":           d.today.AddMonths(-12 * (26 + i%30)).AddDays(-(i * 11 % 300)).String(),
			"status":               statuses[i%len(statuses)],
			"hire_date":            hire.String(),
			"contract_from":        hire.String(),
			"contract_indefinite":  i%3 != 0,
			"registration_address": fmt.Sprintf("%s %d, %s", []string{"Náměstí Míru", "Hlavní", "Nádražní", "Školní"}[i%4], 1+i*3, []string{"Praha", "Ostrava", "Brno", "Olomouc"}[i%4]),
			"work_location":        []string{"Praha", "Ostrava"}[i%2],
			"office_id":            offices[i%len(offices)].String(),
			"bank_country":         "CZ",
			"bank_account":         fmt.Sprintf("%d/0800", 1000000000+i*7919),
			"flags":                map[string]any{"pas_souhlas": i%2 == 0, "propiska_cz": p.country != "CZ" && i%3 == 0},
		}
		if i%3 == 0 {
			fields["contract_to"] = hire.AddMonths(24).String()
		}
		if p.country == "CZ" || p.country == "SK" {
			fields["rodne_cislo"] = fmt.Sprintf("%02d%02d%02d/%04d", 70+i%25, 1+i%12, 1+i%28, 1000+i*37)
		}
		if p.country == "PL" || p.country == "RO" {
			delete(fields, "bank_account")
			fields["bank_country"] = p.country
			fields["iban"] = demoIBAN(i)
		}
		for k, v := range fields {
			if err := in.Set(k, v); err != nil {
				return err
			}
		}
		drv, err := d.s.Drivers.Create(ctx, d.hr, func(i *drivers.Input) error { *i = in; return nil })
		if err != nil {
			return fmt.Errorf("driver %s %s: %w", p.first, p.last, err)
		}
		d.driverIDs = append(d.driverIDs, drv.ID)
	}
	return nil
}

// demoIBAN returns a valid German-format IBAN (checksum computed), good
// enough for a demo bank field.
func demoIBAN(i int) string {
	bban := fmt.Sprintf("37040044%010d", 532013000+i)
	// Move "DE00" to the end, letters to numbers (D=13, E=14), mod 97.
	num := bban + "1314" + "00"
	rem := 0
	for _, ch := range num {
		rem = (rem*10 + int(ch-'0')) % 97
	}
	return fmt.Sprintf("DE%02d%s", 98-rem, bban)
}

// asciiFold removes diacritics for e-mail addresses.
func asciiFold(s string) string {
	r := strings.NewReplacer("á", "a", "č", "c", "ď", "d", "é", "e", "ě", "e", "í", "i", "ň", "n", "ó", "o", "ř", "r", "š", "s",
		"ť", "t", "ú", "u", "ů", "u", "ý", "y", "ž", "z", "ľ", "l", "ĺ", "l", "ô", "o", "ä", "a", "ą", "a", "ć", "c", "ę", "e",
		"ł", "l", "ń", "n", "ś", "s", "ź", "z", "ż", "z", "ă", "a", "â", "a", "î", "i", "ș", "s", "ț", "t", "Ł", "L", "Ľ", "L",
		"Š", "S", "Č", "C", "Ž", "Z", "Ř", "R", "Ș", "S", "Ț", "T")
	return r.Replace(s)
}

// documentPlan spreads the statuses: each driver gets every status on some
// documents; the first drivers keep their required documents valid so the
// list shows ready drivers too.
var documentPlan = []string{"valid", "valid", "warning", "valid", "expiring_soon", "no_data", "valid", "expired", "valid", "no_data", "valid"}

func (d *demo) documents(ctx context.Context) error {
	rules, err := documents.LoadRules(ctx, d.s.DB, d.company)
	if err != nil {
		return err
	}
	required := map[string]bool{}
	for _, r := range rules {
		required[r.DocumentType] = r.Required
	}
	for i, driverID := range d.driverIDs {
		docs, err := d.s.Documents.Read(ctx, d.hr, driverID)
		if err != nil {
			return err
		}
		for t, doc := range docs {
			state := documentPlan[(i*3+t)%len(documentPlan)]
			if required[doc.Type] && i < 30 {
				state = "valid"
			}
			var until *civil.Date
			switch state {
			case "no_data":
				continue
			case "valid":
				u := d.today.AddDays(120 + (i*37+t*53)%900)
				until = &u
				if (i+t)%9 == 0 {
					until = nil // a document that does not expire
				}
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
			if (i+t)%7 == 0 {
				versions = 2 // a renewed document with its history
			}
			for v := 1; v <= versions; v++ {
				meta := map[string]string{"number": fmt.Sprintf("%s-%06d", strings.ToUpper(doc.Type[:2]), 100000+i*97+t), "country": "CZ"}
				if until != nil {
					// An older version was valid two years earlier.
					u := until.AddMonths(-24 * (versions - v))
					meta["valid_from"], meta["valid_until"] = u.AddMonths(-24).String(), u.String()
				}
				body, err := demoUpload(doc.Type, v, meta)
				if err != nil {
					return err
				}
				if _, err := d.s.Documents.Upload(ctx, d.hr, driverID, doc.ID, func() (*multipart.Reader, error) { return body, nil }); err != nil {
					return fmt.Errorf("upload %s: %w", doc.Type, err)
				}
			}
		}
	}
	return nil
}

// demoUpload builds a small real file (a PDF, or a PNG for photo-like
// documents) as a multipart body with the metadata parts.
func demoUpload(docType string, version int, meta map[string]string) (*multipart.Reader, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	name, content := docType+".pdf", demoPDF(fmt.Sprintf("Konvoj demo: %s, version %d", docType, version))
	if docType == "passport" || docType == "drivers_license" {
		name, content = docType+".png", demoPNG(version)
	}
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(content); err != nil {
		return nil, err
	}
	for k, v := range meta {
		if err := w.WriteField(k, v); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return multipart.NewReader(&body, w.Boundary()), nil
}

// demoPDF is a minimal valid one-page PDF showing a line of text.
func demoPDF(text string) []byte {
	text = strings.NewReplacer("(", "", ")", "", "\\", "").Replace(asciiFold(text))
	stream := fmt.Sprintf("BT /F1 18 Tf 72 720 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// demoPNG is a small card-shaped image.
func demoPNG(version int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	bg := color.RGBA{R: 220, G: 232, B: 245, A: 255}
	if version > 1 {
		bg = color.RGBA{R: 226, G: 240, B: 222, A: 255}
	}
	for y := 0; y < 200; y++ {
		for x := 0; x < 320; x++ {
			c := bg
			if x > 20 && x < 110 && y > 40 && y < 160 {
				c = color.RGBA{R: 150, G: 160, B: 175, A: 255} // the photo
			}
			if x > 130 && x < 300 && (y/20)%2 == 0 && y > 40 && y < 160 {
				c = color.RGBA{R: 90, G: 100, B: 120, A: 255} // lines of text
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// decodeInto builds a service input the way a JSON request would.
func decodeInto[T any](fields map[string]any) (T, error) {
	var v T
	raw, err := json.Marshal(fields)
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal(raw, &v)
}

// finance: six months of pay per driver. Months before the last two are
// approved, closed and paid; the last month is approved; this month's are
// pending.
func (d *demo) finance(ctx context.Context) error {
	accountant := d.principal(auth.RoleAccountant, demoUsers[2].email, demoUsers[2].first+" "+demoUsers[2].last)
	for i, driverID := range d.driverIDs {
		// The ledgers grow tenfold here: statistics once the first
		// driver's are in, then every ten drivers.
		if i%10 == 1 {
			if err := d.analyze(ctx); err != nil {
				return err
			}
		}
		for m := -5; m <= 0; m++ {
			month := d.today.MonthStart().AddMonths(m)
			last := month.MonthEnd()
			if m == 0 {
				last = d.today
			}
			day := func(n int) string {
				t := month.AddDays(n)
				if t.After(last) {
					t = last
				}
				return t.String()
			}
			items := []map[string]any{
				{"transaction_type": "business_trip", "category": "business_trip", "amount": fmt.Sprintf("%d.00", 1800+(i*53+m*7)%1700), "transaction_date": day(6), "description": "Stravné – cesta do Německa"},
				{"transaction_type": "business_trip", "category": "business_trip", "amount": fmt.Sprintf("%d.50", 1500+(i*31+m*11)%1600), "transaction_date": day(17), "description": "Stravné – cesta do Polska"},
			}
			if m < 0 {
				items = append(items, map[string]any{"transaction_type": "base_salary", "category": "salary",
					"amount": fmt.Sprintf("%d.00", 38000+(i*997)%9000), "transaction_date": last.String(), "description": "Mzda"})
			}
			if (i+m)%4 == 0 {
				items = append(items, map[string]any{"transaction_type": "bonus", "category": "performance_bonus",
					"amount": "2500.00", "transaction_date": day(24), "description": "Odměna za bezpečnou jízdu"})
			}
			if (i+m)%5 == 0 {
				items = append(items, map[string]any{"transaction_type": "deduction", "category": "advance",
					"amount": "-3000.00", "transaction_date": day(10), "description": "Záloha"})
			}
			for _, it := range items {
				in, err := decodeInto[finance.TransactionInput](it)
				if err != nil {
					return err
				}
				tx, err := d.s.Finance.CreateTransaction(ctx, accountant, driverID, finance.Given(in))
				if err != nil {
					return fmt.Errorf("transaction %v: %w", it, err)
				}
				if m < 0 {
					up, _ := decodeInto[finance.TransactionInput](map[string]any{"status": "approved"})
					if _, err := d.s.Finance.UpdateTransaction(ctx, accountant, driverID, tx.ID, finance.Given(up)); err != nil {
						return fmt.Errorf("approve: %w", err)
					}
				}
			}
		}
	}
	return nil
}

// payPeriods closes and pays every month before the last one; nothing in
// them is pending any more, so no close needs force.
func (d *demo) payPeriods(ctx context.Context) error {
	accountant := d.principal(auth.RoleAccountant, demoUsers[2].email, demoUsers[2].first+" "+demoUsers[2].last)
	for _, driverID := range d.driverIDs {
		periods, err := d.s.Finance.ListPeriods(ctx, accountant, driverID, finance.Given(finance.PeriodFilter{}))
		if err != nil {
			return err
		}
		for _, p := range periods {
			if !p.PeriodStart.Before(d.today.MonthStart().AddMonths(-1)) {
				continue
			}
			if _, err := d.s.Finance.ClosePeriod(ctx, accountant, driverID, p.ID, finance.Given(finance.ClosePeriodInput{})); err != nil {
				return fmt.Errorf("close period: %w", err)
			}
			payDay := p.PeriodEnd.AddDays(10).String()
			if _, err := d.s.Finance.PayPeriod(ctx, accountant, driverID, p.ID, finance.Given(finance.PayPeriodInput{PaymentDate: &payDay})); err != nil {
				return fmt.Errorf("pay period: %w", err)
			}
		}
	}
	return nil
}

// penalties in every state, dated in the open months.
func (d *demo) penalties(ctx context.Context) error {
	type plan struct {
		typ, severity, amount, location, description string
		then                                         string // "", accept, dispute, keep, reduce, cancel
	}
	plans := []plan{
		{"speeding", "minor", "1500.00", "D1, km 112", "Překročení rychlosti o 14 km/h", ""},
		{"late_delivery", "moderate", "2000.00", "Kaufland Brno", "Pozdní doručení, zákazník účtoval pokutu", ""},
		{"damage", "major", "8500.00", "Depo Ostrava", "Poškozené zrcátko při couvání", "accept"},
		{"speeding", "minor", "1000.00", "A4, Wrocław", "Radar, 9 km/h nad limit", "dispute"},
		{"accident", "critical", "15000.00", "D5, Plzeň", "Nehoda při odbočování", "keep"},
		{"other", "moderate", "3000.00", "Hamburg port", "Chybějící CMR", "reduce"},
		{"late_delivery", "minor", "1200.00", "Lidl Katowice", "Zpoždění 3 hodiny", "cancel"},
		{"speeding", "moderate", "2500.00", "D11, Hradec Králové", "Překročení rychlosti o 25 km/h", "dispute"},
	}
	accountant := d.principal(auth.RoleAccountant, demoUsers[2].email, demoUsers[2].first+" "+demoUsers[2].last)
	// Older, accepted and approved penalties: the rating history moves from
	// month to month.
	for i, driverID := range d.driverIDs {
		for m := -5; m <= -2; m++ {
			if (i+m)%3 != 0 {
				continue
			}
			incident := d.today.MonthStart().AddMonths(m).AddDays((i * 5) % 25)
			in, err := decodeInto[finance.PenaltyInput](map[string]any{
				"penalty_type": "speeding", "severity": "minor", "amount": fmt.Sprintf("%d.00", 500+(i*137+m*71)%2500),
				"incident_date": incident.String(), "location": "D1", "description": "Překročení rychlosti",
			})
			if err != nil {
				return err
			}
			pen, err := d.s.Finance.CreatePenalty(ctx, d.hr, driverID, finance.Given(in))
			if err != nil {
				return fmt.Errorf("older penalty: %w", err)
			}
			if _, err := d.s.Finance.AcceptPenalty(ctx, d.hr, driverID, pen.ID); err != nil {
				return fmt.Errorf("accept older penalty: %w", err)
			}
			// Approved, as the month's other transactions: its period is
			// closed and paid later, and a close leaves nothing pending.
			approve, _ := decodeInto[finance.TransactionInput](map[string]any{"status": "approved"})
			if _, err := d.s.Finance.UpdateTransaction(ctx, accountant, driverID, pen.FinanceID, finance.Given(approve)); err != nil {
				return fmt.Errorf("approve older penalty: %w", err)
			}
		}
	}
	for i, pl := range plans {
		for round := 0; round < 2; round++ {
			driverID := d.driverIDs[(i*5+round*17)%len(d.driverIDs)]
			incident := d.today.AddDays(-(2 + i*3 + round))
			if incident.Before(d.today.MonthStart().AddMonths(-1)) {
				incident = d.today.MonthStart().AddMonths(-1).AddDays(i)
			}
			in, err := decodeInto[finance.PenaltyInput](map[string]any{
				"penalty_type": pl.typ, "severity": pl.severity, "amount": pl.amount, "incident_date": incident.String(),
				"location": pl.location, "description": pl.description,
				"evidence": []map[string]string{{"type": "photo", "url": "https://evidence.demo-transport.cz/" + pl.typ + ".jpg"}},
			})
			if err != nil {
				return err
			}
			pen, err := d.s.Finance.CreatePenalty(ctx, d.hr, driverID, finance.Given(in))
			if err != nil {
				return fmt.Errorf("penalty: %w", err)
			}
			if pl.then == "" {
				continue
			}
			if pl.then == "accept" {
				if _, err := d.s.Finance.AcceptPenalty(ctx, d.hr, driverID, pen.ID); err != nil {
					return fmt.Errorf("accept: %w", err)
				}
				continue
			}
			dis, _ := decodeInto[finance.DisputeInput](map[string]any{"dispute_reason": "Nebyl jsem to já, vůz řídil kolega.",
				"evidence": []map[string]string{{"type": "document", "url": "https://evidence.demo-transport.cz/vykaz.pdf"}}})
			if _, err := d.s.Finance.DisputePenalty(ctx, d.hr, driverID, pen.ID, finance.Given(dis)); err != nil {
				return fmt.Errorf("dispute: %w", err)
			}
			if pl.then == "dispute" {
				continue
			}
			res := map[string]any{"resolution_action": pl.then, "resolution": "Posouzeno HR oddělením."}
			if pl.then == "reduce" {
				res["new_amount"] = "1500.00"
			}
			rin, _ := decodeInto[finance.ResolveInput](res)
			if _, err := d.s.Finance.ResolvePenalty(ctx, d.hr, driverID, pen.ID, finance.Given(rin)); err != nil {
				return fmt.Errorf("resolve %s: %w", pl.then, err)
			}
		}
	}
	return nil
}

// orders for the activity metric: the stored model has no orders API yet,
// so they are written directly. Most drivers reach the monthly minimum.
func (d *demo) orders(ctx context.Context) error {
	_, err := d.s.DB.Exec(ctx, `
		INSERT INTO orders (company_id, driver_id, order_number, order_date, status, customer_name, origin, destination, price, currency)
		SELECT $1, dr.id, 'ZAK-' || to_char(mm.m, 'YYMM') || '-' || lpad(dr.internal_seq::text, 3, '0') || '-' || k,
			least(mm.m + ((k * 3) % 27), $2::date),
			CASE WHEN k % 13 = 0 THEN 'cancelled' WHEN mm.m + ((k * 3) % 27) >= $2::date THEN 'in_progress' ELSE 'completed' END,
			(ARRAY['Škoda Auto a.s.','Kaufland Česká republika','DHL Freight','Lidl Polska','Metro Cash & Carry'])[1 + k % 5],
			(ARRAY['Praha','Brno','Ostrava','Plzeň','Wrocław'])[1 + k % 5],
			(ARRAY['Berlin','Wien','München','Bratislava','Katowice'])[1 + (k * 3) % 5],
			(9000 + (dr.internal_seq * 131 + k * 977) % 25000)::numeric(10,2), 'CZK'
		FROM drivers dr,
			generate_series(date_trunc('month', $2::date) - interval '6 months', date_trunc('month', $2::date), interval '1 month') AS g(ts),
			LATERAL (SELECT g.ts::date AS m) mm,
			generate_series(1, 4 + (dr.internal_seq::int % 8)) k
		WHERE dr.company_id = $1 AND dr.status = 'active'`, d.company, d.today)
	return err
}

// ratings for the six months before this one; the current month is
// computed when it is read.
func (d *demo) ratings(ctx context.Context) error {
	for m := -6; m <= -1; m++ {
		month := d.today.MonthStart().AddMonths(m)
		if _, err := d.s.Rating.RateCompany(ctx, d.company, rating.MonthOf(month.Year(), month.Month())); err != nil {
			return fmt.Errorf("rate %s: %w", month.String()[:7], err)
		}
	}
	return nil
}
