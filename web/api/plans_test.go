package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web/webtest"
)

// planTracer counts the request pool's statements by how they are planned.
type planTracer struct {
	mu             sync.Mutex
	reused, custom int
}

func (p *planTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	p.count(ctx)
	return ctx
}

func (p *planTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The statements of a batch (a driver's documents and their files) count
// one by one.
func (p *planTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (p *planTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchQueryData) {
	p.count(ctx)
}

func (p *planTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (p *planTracer) count(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if postgres.PlansReused(ctx) {
		p.reused++
	} else {
		p.custom++
	}
}

// take returns the counts since the last take.
func (p *planTracer) take() (reused, custom int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	reused, custom = p.reused, p.custom
	p.reused, p.custom = 0, 0
	return reused, custom
}

// TestPlansByRoute: every statement of a read of one driver's records may
// reuse its plan; every statement of a read across the company (lists,
// ranking, reports) and of a write is planned with its values
// (docs/operations.md, "Query plans").
func TestPlansByRoute(t *testing.T) {
	t.Parallel()
	tracer := &planTracer{}
	env := webtest.New(t, webtest.WithTracer(tracer))
	company := env.Company("Acme", "enterprise")
	driver := env.Driver(company).String()
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/drivers?per_page=1").Expect(http.StatusOK) // provisions the user
	tracer.take()
	one := []string{
		"/api/v0/drivers/" + driver,
		"/api/v0/drivers/" + driver + "/documents",
		"/api/v0/drivers/" + driver + "/finance",
		"/api/v0/drivers/" + driver + "/finance/periods",
		"/api/v0/drivers/" + driver + "/finance/aggregates",
		"/api/v0/drivers/" + driver + "/penalties",
		"/api/v0/drivers/" + driver + "/rating",
		"/api/v0/drivers/" + driver + "/rating/history",
	}
	for _, path := range one {
		hr.Get(path).Expect(http.StatusOK)
		if reused, custom := tracer.take(); reused == 0 || custom != 0 {
			t.Errorf("GET %s: %d statements on reused plans, %d on custom ones; want all reused", path, reused, custom)
		}
	}
	wide := []string{
		"/api/v0/drivers",
		"/api/v0/drivers?document_status=expired",
		"/api/v0/ratings",
		"/api/v0/reports/compliance",
		"/api/v0/notifications",
	}
	for _, path := range wide {
		hr.Get(path).Expect(http.StatusOK)
		if reused, custom := tracer.take(); reused != 0 || custom == 0 {
			t.Errorf("GET %s: %d statements on reused plans, %d on custom ones; want all custom", path, reused, custom)
		}
	}
	hr.Delete("/api/v0/drivers/" + driver).Expect(http.StatusNoContent)
	if reused, custom := tracer.take(); reused != 0 || custom == 0 {
		t.Errorf("DELETE /drivers/{id}: %d statements on reused plans, %d on custom ones; want all custom", reused, custom)
	}
}
