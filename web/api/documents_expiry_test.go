package api_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// byExpiryItem is an item of GET /api/v0/documents.
type byExpiryItem struct {
	ID         uuid.UUID `json:"id"`
	HolderType string    `json:"holder_type"`
	HolderID   uuid.UUID `json:"holder_id"`
	Holder     struct {
		InternalNumber string `json:"internal_number"`
		Name           string `json:"name"`
	} `json:"holder"`
	Type            string  `json:"type"`
	Number          *string `json:"number"`
	ValidUntil      *string `json:"valid_until"`
	DaysUntilExpiry *int    `json:"days_until_expiry"`
	Status          string  `json:"status"`
	EffectiveStatus string  `json:"effective_status"`
	LimitedBy       *string `json:"limited_by"`
}

type byExpiryPage struct {
	Data     []byExpiryItem `json:"data"`
	Total    int            `json:"total"`
	LastPage int            `json:"last_page"`
}

// byExpiryWorld is a company whose drivers' documents end at known
// distances from today, and what no list of it may show.
type byExpiryWorld struct {
	env               *webtest.Env
	company, office   uuid.UUID
	hr                *webtest.Caller
	alpha, bravo      uuid.UUID
	charlie, delta    uuid.UUID
	echo              uuid.UUID
	alphaPassportID   uuid.UUID
	bravoWorkPermitID uuid.UUID
}

func newByExpiryWorld(t *testing.T) *byExpiryWorld {
	t.Helper()
	env := webtest.New(t)
	w := &byExpiryWorld{env: env, company: env.Company("Acme", "free")}
	w.hr = env.As(w.company, auth.RoleHRManager)
	w.office = fixtures.Office(t, env.DB, w.company, "HQ")
	driver := func(name string, extra map[string]any, docs map[string]int) uuid.UUID {
		body := map[string]any{"first_name": "D", "last_name": name, "email": name + "@example.cz"}
		for k, v := range extra {
			body[k] = v
		}
		id := drvCreate(t, w.hr, body).ID
		for typ, days := range docs {
			drvSetDocument(t, env, id, typ, drvDays(days))
		}
		return id
	}
	w.alpha = driver("alpha", nil, map[string]int{"passport": 10, "drivers_license": 25, "code_95": -5, "medical_examination": 200})
	// The residence permit caps the work permit: the permit is valid on
	// its own, expiring soon through its cap.
	w.bravo = driver("bravo", nil, map[string]int{"work_permit": 100, "residence_permit": 5})
	w.charlie = driver("charlie", map[string]any{"status": "inactive"}, map[string]int{"passport": 3})
	w.delta = driver("delta", map[string]any{"status": "on_leave", "office_id": w.office.String()}, map[string]int{"tachograph_card": 30})
	w.echo = driver("echo", nil, map[string]int{"passport": 31})
	w.alphaPassportID = webtest.Value[uuid.UUID](t, env, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, w.alpha)
	w.bravoWorkPermitID = webtest.Value[uuid.UUID](t, env, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'work_permit'`, w.bravo)
	if _, err := env.DB.Exec(context.Background(), `UPDATE driver_documents SET number = 'P-123' WHERE id = $1`, w.alphaPassportID); err != nil {
		t.Fatal(err)
	}
	// Never listed: a deleted driver's document, another company's.
	gone := driver("gone", nil, map[string]int{"passport": 2})
	w.hr.Delete("/api/v0/drivers/" + gone.String()).Expect(http.StatusNoContent)
	other := env.Company("Other", "free")
	drvSetDocument(t, env, drvCreate(t, env.As(other, auth.RoleHRManager),
		map[string]any{"first_name": "O", "last_name": "other", "email": "o@example.cz"}).ID, "passport", drvDays(1))
	return w
}

func (w *byExpiryWorld) list(t *testing.T, c *webtest.Caller, query string) byExpiryPage {
	t.Helper()
	var p byExpiryPage
	c.Get("/api/v0/documents?" + query).Expect(http.StatusOK).Decode(&p)
	return p
}

// rows names the items as "driver type" in their order.
func (w *byExpiryWorld) rows(items []byExpiryItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = strings.TrimPrefix(it.Holder.Name, "D ") + " " + it.Type
	}
	return out
}

// Each filter, their AND, inactive drivers left out unless asked, the
// order and the company's documents only.
func TestDocumentsByExpiryFilters(t *testing.T) {
	t.Parallel()
	w := newByExpiryWorld(t)
	cases := []struct {
		query string
		want  []string
		total int
	}{
		// Today to today+30 by the document's own date: not the expired
		// one, nor 31 days, nor the inactive driver's, the deleted
		// driver's or the other company's.
		{"expiring_within=30", []string{"bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card"}, 4},
		{"expiring_within=29", []string{"bravo residence_permit", "alpha passport", "alpha drivers_license"}, 3},
		{"expiring_within=31", []string{"bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card", "echo passport"}, 5},
		{"expiring_within=30&include_inactive=true",
			[]string{"charlie passport", "bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card"}, 5},
		{"expiring_within=30&include_inactive=false", []string{"bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card"}, 4},
		{"status=expired", []string{"alpha code_95"}, 1},
		// The effective status: the work permit through its cap.
		{"status=expiring_soon", []string{"bravo residence_permit", "alpha passport", "bravo work_permit"}, 3},
		{"status=expired,warning", []string{"alpha code_95", "alpha drivers_license", "delta tachograph_card"}, 3},
		{"expiring_within=30&status=warning", []string{"alpha drivers_license", "delta tachograph_card"}, 2},
		{"expiring_within=30&status=expired", nil, 0},
		{"expiring_within=30&type=passport,tachograph_card", []string{"alpha passport", "delta tachograph_card"}, 2},
		{"expiring_within=30&office_id=" + w.office.String(), []string{"delta tachograph_card"}, 1},
		{"expiring_within=30&holder_type=driver", []string{"bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card"}, 4},
		{"expiring_within=30&holder_type=vehicle,trailer", nil, 0},
		{"expiring_within=30&sort_by=driver", []string{"alpha passport", "alpha drivers_license", "bravo residence_permit", "delta tachograph_card"}, 4},
		{"expiring_within=30&sort_by=valid_until&sort_order=desc",
			[]string{"delta tachograph_card", "alpha drivers_license", "alpha passport", "bravo residence_permit"}, 4},
		{"expiring_within=30&sort_by=type", []string{"alpha passport", "bravo residence_permit", "alpha drivers_license", "delta tachograph_card"}, 4},
	}
	for _, tc := range cases {
		p := w.list(t, w.hr, tc.query)
		if got := w.rows(p.Data); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) || p.Total != tc.total {
			t.Errorf("%s: %v (total %d), want %v (total %d)", tc.query, got, p.Total, tc.want, tc.total)
		}
	}

	// Every document of the active drivers by default (14 each), dated
	// ones first; the office's driver's 14.
	all := w.list(t, w.hr, "per_page=100")
	if all.Total != 4*14 || all.Data[0].Type != "code_95" || all.Data[len(all.Data)-1].ValidUntil != nil {
		t.Errorf("unfiltered: total %d, first %s, last valid_until %v", all.Total, all.Data[0].Type, all.Data[len(all.Data)-1].ValidUntil)
	}
	for i := 1; i < len(all.Data); i++ {
		a, b := all.Data[i-1], all.Data[i]
		if a.ValidUntil != nil && b.ValidUntil != nil && *a.ValidUntil > *b.ValidUntil || a.ValidUntil == nil && b.ValidUntil != nil {
			t.Fatalf("not ordered by valid_until at %d: %v then %v", i, a.ValidUntil, b.ValidUntil)
		}
		if a.ValidUntil == nil && b.ValidUntil == nil && a.ID.String() > b.ID.String() {
			t.Fatalf("undated documents not ordered by id at %d", i)
		}
	}
	if p := w.list(t, w.hr, "office_id="+w.office.String()); p.Total != 14 {
		t.Errorf("office: total %d, want 14", p.Total)
	}

	// The items' fields; the capped work permit names its cap.
	p := w.list(t, w.hr, "status=expiring_soon")
	var permit, passport byExpiryItem
	for _, it := range p.Data {
		switch it.ID {
		case w.bravoWorkPermitID:
			permit = it
		case w.alphaPassportID:
			passport = it
		}
	}
	if permit.Status != "valid" || permit.EffectiveStatus != "expiring_soon" || permit.LimitedBy == nil || *permit.LimitedBy != "residence_permit" ||
		permit.DaysUntilExpiry == nil || *permit.DaysUntilExpiry != 100 || permit.HolderType != "driver" || permit.HolderID != w.bravo {
		t.Errorf("capped work permit: %+v", permit)
	}
	if passport.Number == nil || *passport.Number != "P-123" || passport.LimitedBy != nil || passport.Status != "expiring_soon" ||
		passport.EffectiveStatus != "expiring_soon" || passport.Holder.InternalNumber != "DRV-0001" || passport.Holder.Name != "D alpha" ||
		passport.DaysUntilExpiry == nil || *passport.DaysUntilExpiry != 10 {
		t.Errorf("passport: %+v", passport)
	}

	// The other company sees its own document only.
	other := w.list(t, w.env.As(w.env.Company("Third", "free"), auth.RoleAdmin), "expiring_within=30")
	if other.Total != 0 {
		t.Errorf("a third company lists %d documents", other.Total)
	}
}

// Offset paging in the list's envelope, the total on every page.
func TestDocumentsByExpiryPaging(t *testing.T) {
	t.Parallel()
	w := newByExpiryWorld(t)
	first := w.list(t, w.hr, "expiring_within=30&per_page=3")
	second := w.list(t, w.hr, "expiring_within=30&per_page=3&page=2")
	past := w.list(t, w.hr, "expiring_within=30&per_page=3&page=3")
	got := append(w.rows(first.Data), w.rows(second.Data)...)
	want := []string{"bravo residence_permit", "alpha passport", "alpha drivers_license", "delta tachograph_card"}
	if !slices.Equal(got, want) || first.Total != 4 || second.Total != 4 || first.LastPage != 2 || len(past.Data) != 0 || past.Total != 4 {
		t.Errorf("pages %v (totals %d, %d, %d; last page %d)", got, first.Total, second.Total, past.Total, first.LastPage)
	}
	env := w.hr.Get("/api/v0/documents?expiring_within=30&per_page=3").Expect(http.StatusOK).JSON()
	if next, _ := env["next_page_url"].(string); !strings.Contains(next, "expiring_within=30") || !strings.Contains(next, "page=2") {
		t.Errorf("next_page_url %v", env["next_page_url"])
	}
}

// Who may list: admin and HR in full, a dispatcher without numbers, the
// others refused; bad values in the errors' format.
func TestDocumentsByExpiryAccessAndValidation(t *testing.T) {
	t.Parallel()
	w := newByExpiryWorld(t)
	admin := w.env.As(w.company, auth.RoleAdmin)
	dispatcher := w.env.As(w.company, auth.RoleDispatcher)

	full := admin.Get("/api/v0/documents?status=expiring_soon").Expect(http.StatusOK).JSON()
	for _, it := range full["data"].([]any) {
		if _, ok := it.(map[string]any)["number"]; !ok {
			t.Fatalf("admin's item without number: %v", it)
		}
	}
	statusOnly := dispatcher.Get("/api/v0/documents?status=expiring_soon").Expect(http.StatusOK).JSON()
	items := statusOnly["data"].([]any)
	if len(items) != 3 {
		t.Fatalf("dispatcher lists %d documents, want 3", len(items))
	}
	for _, it := range items {
		m := it.(map[string]any)
		if _, ok := m["number"]; ok {
			t.Fatalf("dispatcher's item with number: %v", m)
		}
		if m["effective_status"] != "expiring_soon" || m["holder"] == nil {
			t.Fatalf("dispatcher's item: %v", m)
		}
	}
	w.env.As(w.company, auth.RoleAccountant).Get("/api/v0/documents").ExpectError(http.StatusForbidden, "Forbidden")
	w.env.As(w.company, auth.RoleDriver, "alpha@example.cz").Get("/api/v0/documents").ExpectError(http.StatusForbidden, "Forbidden")
	w.env.As(w.company, auth.RoleAccountant).Get("/api/v0/documents?format=csv").ExpectError(http.StatusForbidden, "Forbidden")

	for _, tc := range []struct {
		query, field string
	}{
		{"expiring_within=0", "expiring_within"},
		{"expiring_within=367", "expiring_within"},
		{"expiring_within=400", "expiring_within"},
		{"status=valid,bogus", "status"},
		{"type=Passport!", "type"},
		{"holder_type=ship", "holder_type"},
		{"sort_by=number", "sort_by"},
		{"sort_order=up", "sort_order"},
		{"format=pdf", "format"},
	} {
		body := w.hr.Get("/api/v0/documents?"+tc.query).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if errs, _ := body["errors"].(map[string]any); errs[tc.field] == nil {
			t.Errorf("%s: errors %v, want %s", tc.query, body["errors"], tc.field)
		}
	}
	for _, q := range []string{"expiring_within=thirty", "include_inactive=maybe", "office_id=HQ", "page=0"} {
		w.hr.Get("/api/v0/documents?"+q).ExpectError(http.StatusBadRequest, "BadRequest")
	}
}

// The exports hold every row of the filter, not one page, in words.
func TestDocumentsByExpiryExport(t *testing.T) {
	t.Parallel()
	w := newByExpiryWorld(t)
	en := http.Header{"Accept-Language": {"en"}}
	r := w.hr.Send(http.MethodGet, "/api/v0/documents?format=csv&status=expiring_soon&per_page=1", nil, en).Expect(http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	recs := readCSV(t, r.Body)
	if len(recs) != 1+3 {
		t.Fatalf("csv has %d rows, want a header and 3: %v", len(recs), recs)
	}
	header := recs[0]
	col := func(name string) int {
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %q in %v", name, header)
		}
		return i
	}
	permit := recs[3]
	if permit[col("Document")] != "Work permit" || permit[col("Status")] != "Expiring soon" || permit[col("Limited by")] != "Residence permit" ||
		permit[col("Own status")] != "Valid" || permit[col("Days left")] != "100" || permit[col("Holder")] != "Driver" {
		t.Errorf("work permit row %v (header %v)", permit, header)
	}
	if recs[2][col("Document number")] != "P-123" {
		t.Errorf("passport row %v", recs[2])
	}

	all := w.list(t, w.hr, "per_page=100").Total
	x := w.hr.Send(http.MethodGet, "/api/v0/documents?format=xlsx", nil, en).Expect(http.StatusOK)
	f, err := excelize.OpenReader(bytes.NewReader(x.Body))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows(f.GetSheetName(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+all || all != 4*14 {
		t.Errorf("xlsx has %d rows, want a header and %d", len(rows), all)
	}

	// A dispatcher's file has no number column.
	d := w.env.As(w.company, auth.RoleDispatcher).Send(http.MethodGet, "/api/v0/documents?format=csv&expiring_within=30", nil, en).Expect(http.StatusOK)
	drecs := readCSV(t, d.Body)
	if slices.Contains(drecs[0], "Document number") || len(drecs) != 1+4 {
		t.Errorf("dispatcher's csv: %v", drecs)
	}
}

// TestStatementsOfDocumentsByExpiry: a page is one statement with its
// total; a page past the end adds the count.
func TestStatementsOfDocumentsByExpiry(t *testing.T) {
	t.Parallel()
	st := &webtest.Statements{}
	env := webtest.New(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	for i, name := range []string{"alpha", "bravo"} {
		id := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": name, "email": name + "@example.cz"}).ID
		drvSetDocument(t, env, id, "passport", drvDays(5+i))
	}
	hr.Get("/api/v0/documents").Expect(http.StatusOK) // the caller's first request signs it in
	st.Take()
	hr.Get("/api/v0/documents?expiring_within=30&status=expiring_soon").Expect(http.StatusOK)
	st.CheckStatements(t, "GET /documents", 1)
	hr.Get("/api/v0/documents?expiring_within=30&page=5").Expect(http.StatusOK)
	st.CheckStatements(t, "GET /documents past the end", 2)
}
