package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// readyFleet makes drivers that are ready or not for each reason: the
// default required types (passport, drivers_license, tachograph_card,
// code_95, medical_examination) plus a work permit for drivers from
// outside the EU and an ADR certificate for drivers tagged adr.
func readyFleet(t *testing.T, env *webtest.Env, hr *webtest.Caller, company uuid.UUID) map[string]uuid.UUID {
	t.Helper()
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "work_permit", "required": true, "required_for": "non_eu"},
		map[string]any{"document_type": "adr_certificate", "required": true, "required_for": "tag:adr"},
	}}).Expect(http.StatusOK)
	base := []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"}
	fleet := []struct {
		name   string
		body   map[string]any
		days   map[string]*int // document type → days until valid_until, over the base types at 100
		remove string          // a base type left without a file
	}{
		{name: "ready"},
		{name: "soon", days: map[string]*int{"medical_examination": drvDays(3)}},
		{name: "noexpiry", days: map[string]*int{"passport": nil}},
		{name: "expired", days: map[string]*int{"code_95": drvDays(-1)}},
		{name: "missing", remove: "tachograph_card"},
		{name: "onleave", body: map[string]any{"status": "on_leave"}},
		{name: "inactive", body: map[string]any{"status": "inactive"}},
		{name: "noneu", body: map[string]any{"citizenship": "UA"}},
		{name: "noneuok", body: map[string]any{"citizenship": "UA"},
			days: map[string]*int{"work_permit": drvDays(200), "residence_permit": drvDays(200)}},
		{name: "adr", body: map[string]any{"tags": []string{"adr"}}},
		// A work permit expired by its cap, the residence permit.
		{name: "capped", body: map[string]any{"citizenship": "UA"},
			days: map[string]*int{"work_permit": drvDays(200), "residence_permit": drvDays(-2)}},
	}
	ids := map[string]uuid.UUID{}
	for _, f := range fleet {
		body := map[string]any{"first_name": "R", "last_name": f.name, "email": f.name + "@example.cz", "citizenship": "CZ"}
		for k, v := range f.body {
			body[k] = v
		}
		id := drvCreate(t, hr, body).ID
		ids[f.name] = id
		for _, typ := range base {
			if typ == f.remove {
				continue
			}
			days, ok := f.days[typ]
			if !ok {
				days = drvDays(100)
			}
			drvSetDocument(t, env, id, typ, days)
		}
		for typ, days := range f.days {
			if !slices.Contains(base, typ) {
				drvSetDocument(t, env, id, typ, days)
			}
		}
	}
	return ids
}

// is_ready=true keeps the drivers the items call ready, is_ready=false
// the others, whatever made them not ready: an expired or missing required
// document (of every driver, or of its group: non-EU, tagged; or expired
// by its cap) or a status other than active. Both combine with the other
// filters, sorts and both pagings; another value is 422.
func TestDriverListIsReady(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := readyFleet(t, env, hr, company)
	// Outside the list: a soft-deleted ready driver and another company's.
	gone := drvCreate(t, hr, map[string]any{"first_name": "R", "last_name": "gone", "email": "gone@example.cz"}).ID
	drvMakeReady(t, env, gone)
	hr.Delete("/api/v0/drivers/" + gone.String()).Expect(http.StatusNoContent)
	other := env.Company("Other", "free")
	drvMakeReady(t, env, drvCreate(t, env.As(other, auth.RoleHRManager),
		map[string]any{"first_name": "O", "last_name": "other", "email": "o@example.cz"}).ID)

	byID := map[uuid.UUID]string{}
	for n, id := range ids {
		byID[id] = n
	}
	list := func(query string) ([]string, int) {
		t.Helper()
		p := drvList(t, hr, query+"&per_page=100&sort_by=last_name")
		out := make([]string, len(p.Data))
		for i, it := range p.Data {
			out[i] = byID[it.ID]
		}
		return out, p.Total
	}
	ready := []string{"noexpiry", "noneuok", "ready", "soon"}
	notReady := []string{"adr", "capped", "expired", "inactive", "missing", "noneu", "onleave"}

	// The field first: the filter must agree with it.
	all := drvList(t, hr, "per_page=100")
	for _, it := range all.Data {
		if want := slices.Contains(ready, byID[it.ID]); it.IsReady != want {
			t.Errorf("%s: is_ready %v, want %v", byID[it.ID], it.IsReady, want)
		}
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"is_ready=true", ready},
		{"is_ready=false", notReady},
		{"is_ready=", slices.Sorted(slices.Values(append(slices.Clone(ready), notReady...)))},
		{"is_ready=false&status=active", []string{"adr", "capped", "expired", "missing", "noneu"}},
		{"is_ready=true&status=on_leave,inactive", []string{}},
		{"is_ready=false&document_status=expired", []string{"capped", "expired"}},
		{"is_ready=true&document_status=expiring_soon", []string{"soon"}},
		{"is_ready=true&citizenship=UA", []string{"noneuok"}},
		{"is_ready=false&search=noneu", []string{"noneu"}},
		{"is_ready=true&document_due_within=5", []string{"soon"}},
	}
	for _, tc := range cases {
		got, total := list(tc.query)
		if !slices.Equal(got, tc.want) || total != len(tc.want) {
			t.Errorf("%s: got %v (total %d), want %v", tc.query, got, total, tc.want)
		}
	}

	// Pages: offset pages past the end keep the total; cursor pages visit
	// the same drivers as one page, in every sort.
	if p := drvList(t, hr, "is_ready=false&per_page=3&page=9"); len(p.Data) != 0 || p.Total != len(notReady) {
		t.Errorf("past the end: %d items, total %d", len(p.Data), p.Total)
	}
	for _, sort := range []string{"internal_number", "last_name", "next_expiry", "next_due"} {
		for _, v := range []string{"true", "false"} {
			filter := "is_ready=" + v
			want := drvIDs(drvList(t, hr, filter+"&per_page=100&sort_by="+sort).Data)
			if got := drvPageAll(t, hr, "sort_by="+sort, filter, 2); !slices.Equal(got, want) {
				t.Errorf("%s, %s: cursor pages %v, want %v", sort, filter, got, want)
			}
		}
	}

	// A driver caller's own list keeps its record only when it matches.
	self := env.As(company, auth.RoleDriver, "expired@example.cz")
	if p := drvList(t, self, "is_ready=false"); len(p.Data) != 1 || p.Data[0].ID != ids["expired"] {
		t.Errorf("own list, not ready: %+v", p.Data)
	}
	if p := drvList(t, self, "is_ready=true"); len(p.Data) != 0 {
		t.Errorf("own list, ready: %+v", p.Data)
	}

	for _, v := range []string{"yes", "1", "TRUE", "true,false"} {
		body := hr.Get("/api/v0/drivers?is_ready="+v).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if _, ok := body["errors"].(map[string]any)["is_ready"]; !ok {
			t.Errorf("is_ready=%s: errors %v", v, body["errors"])
		}
	}
	// The exports take the filter too.
	hr.Get("/api/v0/drivers/export?format=csv&is_ready=maybe").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
}

// datedItem reads a list item's document dates.
type datedItem struct {
	ID         uuid.UUID `json:"id"`
	NextExpiry *dated    `json:"next_expiry"`
	NextDue    *dated    `json:"next_due"`
	Expired    []dated   `json:"expired_documents"`
}

type dated struct {
	DocumentID      uuid.UUID `json:"document_id"`
	DocumentType    string    `json:"document_type"`
	ValidUntil      string    `json:"valid_until"`
	DaysUntilExpiry int       `json:"days_until_expiry"`
	Status          string    `json:"status"`
}

func (d *dated) String() string {
	if d == nil {
		return "null"
	}
	return fmt.Sprintf("%s %d %s", d.DocumentType, d.DaysUntilExpiry, d.Status)
}

// next_due names the next document coming due (valid_until today or
// later), never an expired one; expired_documents lists the expired ones
// apart, the longest expired first; next_expiry stays the most urgent of
// all (the first expired one, else the next due). sort_by=next_due orders
// by it, drivers without one last.
func TestDriverListNextDueAndExpired(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ids := expiryFleet(t, env, hr)
	// Two expired documents and one due later than the filter's 30 days:
	// the demo's case, counted by expiring within 30 days before.
	late := drvCreate(t, hr, map[string]any{"first_name": "D", "last_name": "late", "email": "late@example.cz"}).ID
	drvSetDocument(t, env, late, "work_permit", drvDays(-5))
	drvSetDocument(t, env, late, "a1_eu", drvDays(-40))
	drvSetDocument(t, env, late, "code_95", drvDays(45))
	ids["late"] = late

	var p struct{ Data []datedItem }
	hr.Get("/api/v0/drivers?include=next_expiry,next_due,expired_documents&per_page=100").Expect(http.StatusOK).Decode(&p)
	byID := map[uuid.UUID]string{}
	for n, id := range ids {
		byID[id] = n
	}
	want := map[string][3]string{ // next_due, expired_documents, next_expiry
		"expired":  {"null", "[passport -1 expired]", "passport -1 expired"},
		"today":    {"visa_biometrics 0 expiring_soon", "[]", "visa_biometrics 0 expiring_soon"},
		"in30":     {"drivers_license 30 warning", "[]", "drivers_license 30 warning"},
		"in31":     {"code_95 31 valid", "[]", "code_95 31 valid"},
		"both":     {"medical_examination 10 expiring_soon", "[passport -3 expired]", "passport -3 expired"},
		"nofile":   {"null", "[]", "null"},
		"noexpiry": {"null", "[]", "null"},
		"also30":   {"tachograph_card 30 warning", "[]", "tachograph_card 30 warning"},
		"late":     {"code_95 45 valid", "[a1_eu -40 expired work_permit -5 expired]", "a1_eu -40 expired"},
	}
	for _, it := range p.Data {
		n := byID[it.ID]
		if it.Expired == nil {
			t.Errorf("%s: expired_documents null, want a list", n)
		}
		exp := "["
		for i := range it.Expired {
			if i > 0 {
				exp += " "
			}
			exp += it.Expired[i].String()
		}
		got := [3]string{it.NextDue.String(), exp + "]", it.NextExpiry.String()}
		if got != want[n] {
			t.Errorf("%s: next_due, expired, next_expiry = %q, want %q", n, got, want[n])
		}
		if n == "late" && it.NextExpiry.DocumentID != it.Expired[0].DocumentID {
			t.Errorf("late: next_expiry %s is not the first expired document %s", it.NextExpiry.DocumentID, it.Expired[0].DocumentID)
		}
	}
	if len(p.Data) != len(want) {
		t.Errorf("%d items, want %d", len(p.Data), len(want))
	}

	// Each field only when asked for.
	one := hr.Get("/api/v0/drivers?include=next_due&search=late").Expect(http.StatusOK).JSON()["data"].([]any)[0].(map[string]any)
	if _, ok := one["next_due"]; !ok {
		t.Error("next_due missing")
	}
	for _, k := range []string{"next_expiry", "expired_documents"} {
		if _, ok := one[k]; ok {
			t.Errorf("%s without include", k)
		}
	}
	hr.Get("/api/v0/drivers?include=next_due,expired").ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	// The accountant, who may not list documents, gets nulls.
	var acc struct{ Data []datedItem }
	env.As(company, auth.RoleAccountant).Get("/api/v0/drivers?include=next_due,expired_documents&search=late").
		Expect(http.StatusOK).Decode(&acc)
	if len(acc.Data) != 1 || acc.Data[0].NextDue != nil || acc.Data[0].Expired != nil {
		t.Errorf("accountant: %+v", acc.Data)
	}

	// Expiring within 30 days: documents due from today to today+30;
	// expired ones never count, so neither "expired" nor "late" is listed.
	var due struct {
		Data  []datedItem
		Total int
	}
	hr.Get("/api/v0/drivers?include=next_due&document_due_within=30&sort_by=next_due").Expect(http.StatusOK).Decode(&due)
	var got []string
	for _, it := range due.Data {
		got = append(got, byID[it.ID])
		if it.NextDue == nil || it.NextDue.DaysUntilExpiry < 0 || it.NextDue.DaysUntilExpiry > 30 {
			t.Errorf("%s: next due %s outside the filter's days", byID[it.ID], it.NextDue)
		}
	}
	tie := []string{"in30", "also30"}
	if ids["also30"].String() < ids["in30"].String() {
		tie = []string{"also30", "in30"}
	}
	if w := slices.Concat([]string{"today", "both"}, tie); !slices.Equal(got, w) || due.Total != len(w) {
		t.Errorf("due within 30 by next due: %v (total %d), want %v", got, due.Total, w)
	}

	// sort_by=next_due: the nearest first, drivers without one last in
	// both directions, the same order in offset and cursor pages.
	nulls := func(desc bool) []string {
		n := []string{"expired", "nofile", "noexpiry"}
		slices.SortFunc(n, func(a, b string) int {
			if desc {
				a, b = b, a
			}
			return strings.Compare(ids[a].String(), ids[b].String())
		})
		return n
	}
	revTie := []string{tie[1], tie[0]}
	orders := map[string][]string{
		"asc":  slices.Concat([]string{"today", "both"}, tie, []string{"in31", "late"}, nulls(false)),
		"desc": slices.Concat([]string{"late", "in31"}, revTie, []string{"both", "today"}, nulls(true)),
	}
	for order, w := range orders {
		q := "sort_by=next_due&sort_order=" + order
		var page struct{ Data []datedItem }
		hr.Get("/api/v0/drivers?per_page=100&" + q).Expect(http.StatusOK).Decode(&page)
		got := make([]string, len(page.Data))
		wantIDs := make([]uuid.UUID, len(w))
		for i, it := range page.Data {
			got[i] = byID[it.ID]
		}
		for i, n := range w {
			wantIDs[i] = ids[n]
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %v, want %v", q, got, w)
		}
		if cur := drvPageAll(t, hr, q, "", 2); !slices.Equal(cur, wantIDs) {
			t.Errorf("%s: cursor pages differ from the offset order", q)
		}
	}
}
