package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// roundTripTracer counts the request pool's round trips: a statement alone
// is one, and so is a batch of them.
type roundTripTracer struct {
	mu sync.Mutex
	n  int
}

func (r *roundTripTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.add()
	return ctx
}

func (r *roundTripTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTripTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.add()
	return ctx
}

func (r *roundTripTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (r *roundTripTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (r *roundTripTracer) add() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
}

// take returns the round trips since the last take.
func (r *roundTripTracer) take() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n = 0
	return n
}

// TestGuardedReadsInOneRoundTrip: a driver with its documents, its documents
// alone, its transactions and a stored past month's rating are each
// answered in one round trip, and the current month's rating in two, the guard's lookup and the
// reads together (docs/performance.md, "One round trip for a guarded
// read"); what was read beside the lookup never reaches a caller the guard
// refuses, and the guard's answers and their order are those of every
// driver read.
func TestGuardedReadsInOneRoundTrip(t *testing.T) {
	t.Parallel()
	tracer := &roundTripTracer{}
	env := webtest.New(t, webtest.WithTracer(tracer))
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := env.Driver(company, fixtures.Email("anna@example.test"))
	d2 := env.Driver(company)
	gone := env.Driver(company)
	foreign := env.Driver(other)
	last := month(-1)
	scores := map[uuid.UUID]any{}
	for _, id := range []uuid.UUID{d, d2, gone} {
		scores[id] = hr.Post("/api/v0/drivers/"+id.String()+"/rating/calculate", map[string]any{"period": last.String()}).Expect(http.StatusOK).JSON()["total_score"]
	}
	env.As(other, auth.RoleHRManager).Post("/api/v0/drivers/"+foreign.String()+"/rating/calculate", map[string]any{"period": last.String()}).Expect(http.StatusOK)
	hr.Post("/api/v0/drivers/"+d.String()+"/finance", map[string]any{
		"transaction_type": "bonus", "amount": "150.00", "transaction_date": last.First().String()}).Expect(http.StatusCreated)
	hr.Delete("/api/v0/drivers/" + gone.String()).Expect(http.StatusNoContent)
	anna := env.As(company, auth.RoleDriver, "anna@example.test")
	// Two penalties, the older incident with an evidence file.
	var pens []string
	for i, kind := range []string{"speeding", "late_delivery"} {
		pen := hr.Post("/api/v0/drivers/"+d.String()+"/penalties", map[string]any{
			"penalty_type": kind, "amount": "100", "incident_date": last.First().AddDays(i).String(), "description": kind}).
			Expect(http.StatusCreated).JSON()
		pens = append(pens, pen["id"].(string))
	}
	photo := addEvidence(t, anna, pens[0], filePart("radar.png", samplePNG())).Expect(http.StatusCreated).JSON()
	// penaltyFiles reads a penalty list's ids and each one's evidence file ids.
	penaltyFiles := func(r map[string]any) (ids []string, files [][]any) {
		data, _ := r["data"].([]any)
		for _, it := range data {
			pen := it.(map[string]any)
			f, _ := pen["evidence_files"].([]any)
			ids, files = append(ids, pen["id"].(string)), append(files, f)
		}
		return ids, files
	}

	for _, c := range []struct {
		name, path, badQuery string
		trips                int
		check                func(t *testing.T, id uuid.UUID, body map[string]any)
	}{
		{"rating of a stored past month", "/rating?period=" + last.String(), "/rating?period=2026-13", 1,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				if r["total_score"] != scores[id] || r["driver_id"] != id.String() || r["rating_period"] != last.String() || r["id"] == nil {
					t.Errorf("stored past month %v, want the recalculated total %v", r, scores[id])
				}
			}},
		// The current month's percentile needs its total: a second trip.
		{"rating of the current month", "/rating", "/rating?period=2026-13", 2,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				if r["driver_id"] != id.String() || r["rating_period"] != month(0).String() || r["previous_score"] != scores[id] || r["total_score"] == nil {
					t.Errorf("current month %v, want it with the stored past month's total %v as its previous score", r, scores[id])
				}
			}},
		{"driver with its documents", "", "", 1,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				docs, _ := r["documents"].([]any)
				if r["id"] != id.String() || len(docs) == 0 || docs[0].(map[string]any)["driver_id"] != id.String() {
					t.Errorf("driver %v, want it with its documents", r)
				}
			}},
		{"documents", "/documents", "/documents?updated_since=2026-01-01T00:00:00Z&limit=0", 1,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				docs, _ := r["data"].([]any)
				if len(docs) == 0 || docs[0].(map[string]any)["driver_id"] != id.String() {
					t.Errorf("documents %v, want the driver's", r)
				}
			}},
		{"finance", "/finance", "/finance?page=x", 1,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				txs, _ := r["data"].([]any)
				sum, _ := r["summary"].(map[string]any)
				if r["total"] != float64(3) || len(txs) != 3 || txs[0].(map[string]any)["driver_id"] != id.String() ||
					sum["total_earnings"] != float64(150) || sum["total_penalties"] != float64(200) {
					t.Errorf("finance %v, want the driver's bonus of 150.00 and two penalties of 100.00, summed", r)
				}
			}},
		{"penalties", "/penalties", "/penalties?page=x", 1,
			func(t *testing.T, id uuid.UUID, r map[string]any) {
				ids, files := penaltyFiles(r)
				sum, _ := r["summary"].(map[string]any)
				if r["total"] != float64(2) || !slices.Equal(ids, []string{pens[1], pens[0]}) || len(files[0]) != 0 ||
					len(files[1]) != 1 || files[1][0].(map[string]any)["id"] != photo["id"] || sum["pending_count"] != float64(2) {
					t.Errorf("penalties %v, want the driver's two, newest incident first, the older with its file", r)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := func(id uuid.UUID, rest string) string { return "/api/v0/drivers/" + id.String() + rest }
			hr.Get(at(d, c.path)).Expect(http.StatusOK) // the caller's principal, resolved once
			tracer.take()
			body := hr.Get(at(d, c.path)).Expect(http.StatusOK).JSON()
			if n := tracer.take(); n != c.trips {
				t.Errorf("%d round trips, want %d", n, c.trips)
			}
			c.check(t, d, body)

			c.check(t, d, anna.Get(at(d, c.path)).Expect(http.StatusOK).JSON())
			anna.Get(at(d2, c.path)).ExpectError(http.StatusForbidden, "AccessDenied")
			env.As(company, auth.RoleDriver).Get(at(d, c.path)).ExpectError(http.StatusForbidden, "AccessDenied") // linked to no record
			hr.Get(at(foreign, c.path)).ExpectError(http.StatusForbidden, "AccessDenied")
			hr.Get(at(gone, c.path)).ExpectError(http.StatusNotFound, "NotFound")
			hr.Get(at(uuid.New(), c.path)).ExpectError(http.StatusNotFound, "NotFound")
			if c.badQuery == "" {
				return
			}
			// The guard answers before a malformed parameter.
			hr.Get(at(uuid.New(), c.badQuery)).ExpectError(http.StatusNotFound, "NotFound")
			anna.Get(at(d2, c.badQuery)).ExpectError(http.StatusForbidden, "AccessDenied")
			hr.Get(at(d, c.badQuery)).ExpectError(http.StatusBadRequest, "BadRequest")
		})
	}
	// A finance filter's invalid value (422) also answers after the guard.
	finance := func(id uuid.UUID) string { return "/api/v0/drivers/" + id.String() + "/finance?status=open" }
	hr.Get(finance(uuid.New())).ExpectError(http.StatusNotFound, "NotFound")
	anna.Get(finance(d2)).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Get(finance(d)).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	penalties := func(id uuid.UUID) string { return "/api/v0/drivers/" + id.String() + "/penalties?status=open" }
	hr.Get(penalties(uuid.New())).ExpectError(http.StatusNotFound, "NotFound")
	anna.Get(penalties(d2)).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Get(penalties(d)).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// A later page's evidence files are its own penalties'; past the end,
	// no penalty and the total still.
	at := "/api/v0/drivers/" + d.String() + "/penalties?per_page=1&page="
	for page, want := range [][]string{{pens[1]}, {pens[0]}, nil} {
		r := hr.Get(at + fmt.Sprint(page+1)).Expect(http.StatusOK).JSON()
		ids, files := penaltyFiles(r)
		if !slices.Equal(ids, want) || r["total"] != float64(2) || (len(ids) == 1 && len(files[0]) != map[string]int{pens[0]: 1, pens[1]: 0}[ids[0]]) {
			t.Errorf("penalties page %d: %v", page+1, r)
		}
	}
}
