package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// expiryItem reads a list item's next_expiry.
type expiryItem struct {
	ID         uuid.UUID `json:"id"`
	NextExpiry *struct {
		DocumentID      uuid.UUID `json:"document_id"`
		DocumentType    string    `json:"document_type"`
		ValidUntil      string    `json:"valid_until"`
		DaysUntilExpiry int       `json:"days_until_expiry"`
		Status          string    `json:"status"`
	} `json:"next_expiry"`
}

// expiryFleet makes drivers whose documents expire at known distances from
// today (in the company's time zone) and returns them by name.
func expiryFleet(t *testing.T, env *webtest.Env, hr *webtest.Caller) map[string]uuid.UUID {
	t.Helper()
	docs := []struct {
		name string
		set  map[string]*int // document type → days until valid_until (nil: no expiry)
	}{
		{"expired", map[string]*int{"passport": drvDays(-1)}},
		{"today", map[string]*int{"visa_biometrics": drvDays(0), "passport": nil}},
		{"in30", map[string]*int{"drivers_license": drvDays(30), "passport": drvDays(400)}},
		{"in31", map[string]*int{"code_95": drvDays(31)}},
		{"both", map[string]*int{"passport": drvDays(-3), "medical_examination": drvDays(10)}},
		{"nofile", nil},
		{"noexpiry", map[string]*int{"passport": nil}},
		{"also30", map[string]*int{"tachograph_card": drvDays(30)}},
	}
	ids := map[string]uuid.UUID{}
	for _, d := range docs {
		it := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": d.name, "email": d.name + "@example.cz"})
		ids[d.name] = it.ID
		for typ, days := range d.set {
			drvSetDocument(t, env, it.ID, typ, days)
		}
	}
	return ids
}

// expiryOutsiders adds two drivers no list of hr's company may show: one
// of the company, soft-deleted, whose passport is valid until gone days
// from today, and one of another company, until other days.
func expiryOutsiders(t *testing.T, env *webtest.Env, hr *webtest.Caller, gone, other int) {
	t.Helper()
	deleted := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": "gone", "email": "gone@example.cz"}).ID
	drvSetDocument(t, env, deleted, "passport", drvDays(gone))
	hr.Delete("/api/v0/drivers/" + deleted.String()).Expect(http.StatusNoContent)
	company := env.Company("Other", "free")
	drvSetDocument(t, env, drvCreate(t, env.As(company, auth.RoleHRManager),
		map[string]any{"first_name": "O", "last_name": "other", "email": "o@example.cz"}).ID, "passport", drvDays(other))
}

func expiryList(t *testing.T, c *webtest.Caller, query string) ([]expiryItem, int) {
	t.Helper()
	var p struct {
		Data  []expiryItem `json:"data"`
		Total int          `json:"total"`
	}
	c.Get("/api/v0/drivers?include=next_expiry&" + query).Expect(http.StatusOK).Decode(&p)
	return p.Data, p.Total
}

func names(ids map[string]uuid.UUID, items []expiryItem) []string {
	byID := map[uuid.UUID]string{}
	for n, id := range ids {
		byID[id] = n
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = byID[it.ID]
	}
	return out
}

// document_due_within keeps drivers with a document expiring from today to
// today+N (expired ones do not count) and combines with other filters.
func TestDriverListDocumentDueWithin(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	// Another company's driver with a document due tomorrow never shows.
	other := env.Company("Other", "free")
	drvSetDocument(t, env, drvCreate(t, env.As(other, auth.RoleHRManager),
		map[string]any{"first_name": "O", "last_name": "other", "email": "o@example.cz"}).ID, "passport", drvDays(1))

	cases := []struct {
		query string
		want  []string
	}{
		{"document_due_within=30", []string{"today", "in30", "both", "also30"}},
		{"document_due_within=29", []string{"today", "both"}},
		{"document_due_within=31", []string{"today", "in30", "in31", "both", "also30"}},
		{"document_due_within=1", []string{"today"}},
		{"document_due_within=366", []string{"today", "in30", "in31", "both", "also30"}},
		{"document_due_within=30&document_status=expired", []string{"both"}},
		{"document_due_within=30&search=also", []string{"also30"}},
		{"document_due_within=30&sort_by=next_expiry", []string{"both", "today", "in30", "also30"}},
	}
	for _, tc := range cases {
		items, total := expiryList(t, hr, tc.query)
		got := names(ids, items)
		if tc.query == "document_due_within=30&sort_by=next_expiry" {
			// in30 and also30 share the date: the id decides.
			if ids["also30"].String() < ids["in30"].String() {
				tc.want[2], tc.want[3] = tc.want[3], tc.want[2]
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
		}
		if total != len(tc.want) {
			t.Errorf("%s: total %d, want %d", tc.query, total, len(tc.want))
		}
	}

	for _, q := range []string{"document_due_within=0", "document_due_within=-5", "document_due_within=367"} {
		body := hr.Get("/api/v0/drivers?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if _, ok := body["errors"].(map[string]any)["document_due_within"]; !ok {
			t.Errorf("%s: errors %v", q, body["errors"])
		}
	}
	for _, q := range []string{"document_due_within=abc", "document_due_within=1.5", "document_due_within=30&limit=x"} {
		hr.Get("/api/v0/drivers?"+q).ExpectError(http.StatusBadRequest, "BadRequest")
	}
	// In cursor mode too.
	if got := drvPageAll(t, hr, "sort_by=next_expiry", "document_due_within=30", 1); len(got) != 4 {
		t.Errorf("cursor paging with the filter: %d drivers", len(got))
	}
}

// Each item names its most urgent document: the earliest valid_until of a
// document with a file, expired ones included; null without one.
func TestDriverListNextExpiryField(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	var today string
	if err := env.DB.QueryRow(context.Background(), `SELECT konvoj_today(timezone)::text FROM companies WHERE id = $1`, company).Scan(&today); err != nil {
		t.Fatal(err)
	}
	var docID uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, ids["both"]).Scan(&docID); err != nil {
		t.Fatal(err)
	}

	items, _ := expiryList(t, hr, "per_page=100")
	got := map[string]string{}
	for i, n := range names(ids, items) {
		ne := items[i].NextExpiry
		if ne == nil {
			got[n] = "null"
			continue
		}
		got[n] = fmt.Sprintf("%s %d %s", ne.DocumentType, ne.DaysUntilExpiry, ne.Status)
		if n == "both" && ne.DocumentID != docID {
			t.Errorf("both: document %s, want the passport %s", ne.DocumentID, docID)
		}
		if n == "today" && ne.ValidUntil != today {
			t.Errorf("today: valid_until %s, want %s", ne.ValidUntil, today)
		}
	}
	want := map[string]string{
		"expired": "passport -1 expired", "today": "visa_biometrics 0 expiring_soon", "in30": "drivers_license 30 warning",
		"in31": "code_95 31 valid", "both": "passport -3 expired", "nofile": "null", "noexpiry": "null",
		"also30": "tachograph_card 30 warning",
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: next_expiry %q, want %q", n, got[n], w)
		}
	}

	// A driver caller sees its own next expiry; so does cursor mode.
	own, _ := expiryList(t, env.As(company, auth.RoleDriver, "both@example.cz"), "")
	if len(own) != 1 || own[0].ID != ids["both"] || own[0].NextExpiry == nil || own[0].NextExpiry.DocumentID != docID {
		t.Fatalf("driver's own list: %+v", own)
	}
	var cur struct{ Data []expiryItem }
	hr.Get("/api/v0/drivers?include=next_expiry&limit=100&search=both").Expect(http.StatusOK).Decode(&cur)
	if len(cur.Data) != 1 || cur.Data[0].NextExpiry == nil || cur.Data[0].NextExpiry.DaysUntilExpiry != -3 {
		t.Fatalf("cursor page: %+v", cur.Data)
	}

	// The accountant, who may not list documents, gets null.
	acc, _ := expiryList(t, env.As(company, auth.RoleAccountant), "search=both")
	if len(acc) != 1 || acc[0].NextExpiry != nil {
		t.Fatalf("accountant: %+v", acc)
	}

	// Without include the item keeps the specification's fields; include
	// knows only next_expiry.
	plain := hr.Get("/api/v0/drivers").Expect(http.StatusOK).JSON()
	for _, it := range plain["data"].([]any) {
		if _, ok := it.(map[string]any)["next_expiry"]; ok {
			t.Fatal("next_expiry without include")
		}
	}
	withNull := hr.Get("/api/v0/drivers?include=next_expiry&search=nofile").Expect(http.StatusOK).JSON()
	if v, ok := withNull["data"].([]any)[0].(map[string]any)["next_expiry"]; !ok || v != nil {
		t.Fatalf("nofile: next_expiry %v (present %v), want null", v, ok)
	}
	hr.Get("/api/v0/drivers?include=documents").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
}

// sort_by=next_expiry: nearest first (expired first), drivers without one
// last in both directions; cursor paging visits the offset order.
func TestDriverListSortByNextExpiry(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	// Ties on the date and on a missing date are broken by id.
	tie := func(a, b string, desc bool) []string {
		if (ids[a].String() < ids[b].String()) == desc {
			return []string{b, a}
		}
		return []string{a, b}
	}
	asc := slices.Concat([]string{"both", "expired", "today"}, tie("in30", "also30", false), []string{"in31"}, tie("nofile", "noexpiry", false))
	desc := slices.Concat([]string{"in31"}, tie("in30", "also30", true), []string{"today", "expired", "both"}, tie("nofile", "noexpiry", true))
	for order, want := range map[string][]string{"asc": asc, "desc": desc} {
		q := "sort_by=next_expiry&sort_order=" + order
		items, total := expiryList(t, hr, q+"&per_page=100")
		if got := names(ids, items); !slices.Equal(got, want) || total != len(want) {
			t.Errorf("%s: got %v (total %d), want %v", order, got, total, want)
		}
		// Offset pages of 3 and cursor pages of 1, 2 and 3 give the same order.
		var paged []string
		for page := 1; page <= 3; page++ {
			items, _ := expiryList(t, hr, fmt.Sprintf("%s&per_page=3&page=%d", q, page))
			paged = append(paged, names(ids, items)...)
		}
		if !slices.Equal(paged, want) {
			t.Errorf("%s offset pages: %v", order, paged)
		}
		wantIDs := make([]uuid.UUID, len(want))
		for i, n := range want {
			wantIDs[i] = ids[n]
		}
		for _, limit := range []int{1, 2, 3} {
			if got := drvPageAll(t, hr, q, "", limit); !slices.Equal(got, wantIDs) {
				t.Errorf("%s limit %d: cursor order %v, want %v", order, limit, got, wantIDs)
			}
		}
	}
	// A cursor of another sort is refused; an unknown sort is 422.
	first := drvList(t, hr, "limit=2&sort_by=next_expiry")
	if first.Meta.NextCursor == nil {
		t.Fatal("no cursor")
	}
	hr.Get("/api/v0/drivers?sort_by=last_name&cursor="+*first.Meta.NextCursor).ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Get("/api/v0/drivers?sort_by=next_expiry_date").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
}

// document_status=expired alone is answered from driver_expiry, its total
// from an index range less the soft-deleted drivers: it finds the same
// drivers, pages and totals as the same question asked through the
// documents (the status filter beside it, or the document types named),
// the soft-deleted and the other company's drivers left out, an expiry
// that a cap causes included, and a document renewed since dropped.
func TestDriverListExpiredFromStoredDays(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	// Expired by its cap: the work permit is valid, the residence permit
	// that caps it is not.
	capped := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": "capped", "email": "capped@example.cz"}).ID
	drvSetDocument(t, env, capped, "work_permit", drvDays(200))
	drvSetDocument(t, env, capped, "residence_permit", drvDays(-2))
	ids["capped"] = capped
	expiryOutsiders(t, env, hr, -9, -1)

	want := []string{"expired", "both", "capped"}
	every := "&document_type=passport,visa_biometrics,drivers_license,code_95,medical_examination,tachograph_card,work_permit,residence_permit"
	for _, q := range []string{"", "&status=active", every} {
		items, total := expiryList(t, hr, "document_status=expired&sort_by=last_name"+q)
		got := names(ids, items)
		if !slices.Equal(got, []string{"both", "capped", "expired"}) || total != len(want) {
			t.Errorf("document_status=expired%s: %v, total %d; want [both capped expired], total 3", q, got, total)
		}
	}
	// Pages: two of three, then the last, then past the end.
	for page, n := range []int{2, 1, 0} {
		items, total := expiryList(t, hr, fmt.Sprintf("document_status=expired&per_page=2&page=%d", page+1))
		if len(items) != n || total != 3 {
			t.Errorf("page %d: %d drivers, total %d; want %d and 3", page+1, len(items), total, n)
		}
	}
	// Renewed: the driver leaves the list at once.
	if _, err := env.DB.Exec(context.Background(), `UPDATE driver_documents SET valid_until = valid_until + 100
		WHERE driver_id = $1 AND type = 'passport'`, ids["expired"]); err != nil {
		t.Fatal(err)
	}
	if items, total := expiryList(t, hr, "document_status=expired&sort_by=last_name"); !slices.Equal(names(ids, items), []string{"both", "capped"}) || total != 2 {
		t.Errorf("after a renewal: %v, total %d", names(ids, items), total)
	}
}

// expiring_soon, warning, and expired with document types, each asked
// alone, take their total from the stored effective dates less the
// soft-deleted drivers (the other statuses and several at once count it
// with the page): the same drivers and totals as the same question with
// every driver status named beside it (counted with the page), the
// soft-deleted and the other company's drivers left out, on every page and
// past the end.
func TestDriverListStatusTotalsFromStoredDates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	expiryOutsiders(t, env, hr, 5, 5)

	want := map[string][]string{
		"expiring_soon":                        {"both", "today"},
		"warning":                              {"also30", "in30"},
		"expiring_soon,warning":                {"also30", "both", "in30", "today"},
		"expired,warning":                      {"also30", "both", "expired", "in30"},
		"expired&document_type=passport":       {"both", "expired"},
		"valid&document_type=passport,code_95": {"in30", "in31", "noexpiry", "today"},
		"no_data":                              {"also30", "both", "expired", "in30", "in31", "noexpiry", "nofile", "today"},
	}
	for q, names1 := range want {
		base := "document_status=" + q + "&sort_by=last_name"
		items, total := expiryList(t, hr, base+"&per_page=100")
		counted, countedTotal := expiryList(t, hr, base+"&status=active,on_leave,inactive,terminated&per_page=100")
		if got := names(ids, items); !slices.Equal(got, names1) || total != len(names1) {
			t.Errorf("%s: %v, total %d; want %v", q, got, total, names1)
		}
		if !slices.Equal(names(ids, counted), names1) || countedTotal != total {
			t.Errorf("%s with every status: %v, total %d; want the same as without", q, names(ids, counted), countedTotal)
		}
		for page := 1; page <= (total+1)/2+1; page++ {
			items, pageTotal := expiryList(t, hr, fmt.Sprintf("%s&per_page=2&page=%d", base, page))
			if n := min(2, max(0, total-2*(page-1))); len(items) != n || pageTotal != total {
				t.Errorf("%s page %d: %d drivers, total %d; want %d and %d", q, page, len(items), pageTotal, n, total)
			}
		}
	}
}

// document_type alone narrows nothing: it keeps every driver, in offset
// and in cursor mode (it answered 500: its argument was sent although no
// condition named it), and beside the document filters it narrows them.
func TestDriverListDocumentTypeAlone(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	every, total := expiryList(t, hr, "sort_by=last_name&per_page=100")
	for _, q := range []string{"document_type=passport", "document_type=passport,code_95&status=active"} {
		items, n := expiryList(t, hr, q+"&sort_by=last_name&per_page=100")
		if !slices.Equal(names(ids, items), names(ids, every)) || n != total || n != len(ids) {
			t.Errorf("%s: %v, total %d; want every driver, %d", q, names(ids, items), n, len(ids))
		}
	}
	if got := drvPageAll(t, hr, "document_type=passport&sort_by=last_name", "", 3); len(got) != len(ids) {
		t.Errorf("document_type=passport in cursor pages: %d drivers, want %d", len(got), len(ids))
	}
	for q, want := range map[string][]string{
		"document_due_within=30":                               {"both", "in30"},
		"document_due_within=30&document_status=expiring_soon": {"both"},
	} {
		items, n := expiryList(t, hr, q+"&document_type=medical_examination,drivers_license&sort_by=last_name")
		if got := names(ids, items); !slices.Equal(got, want) || n != len(want) {
			t.Errorf("%s of the medical examination or the licence: %v, total %d; want %v", q, got, n, want)
		}
	}
}
