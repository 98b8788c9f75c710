package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RequestRole is the role request queries run as: it owns no table and
// cannot bypass row-level security, so it sees only the rows of the company
// set on its session (migrations/00008_row_level_security.sql).
const RequestRole = "konvoj_app"

// RequestStatementTimeout bounds every statement of a request
// (docs/security.md): a runaway query is cancelled, not left holding a
// connection.
const RequestStatementTimeout = "30s"

// companySetting is the session setting the policies read.
const companySetting = "app.company_id"

// companyKey is where a connection remembers the company it is set to.
const companyKey = "konvoj.company_id"

// plansKey is where a connection remembers its plan_cache_mode.
const plansKey = "konvoj.plan_cache_mode"

// The two plan_cache_mode values of a request connection (docs/operations.md,
// "Query plans"). CustomPlans is the pool's own: every execution is planned
// with its values, because companies differ widely in size and a plan made
// for one is poor for another. ReusedPlans is PostgreSQL's default: after
// five executions a prepared statement may keep one generic plan, when that
// is not estimated dearer than planning each time.
const (
	CustomPlans = "force_custom_plan"
	ReusedPlans = "auto"
)

// OpenRequests connects the request pool: the same database URL, switched to
// RequestRole at connect (the role startup parameter, so even RESET ROLE
// stays there), and each connection set, as it is acquired, to the company
// of the acquiring context (WithCompany). A context without a company sets
// none, and then no row of any tenant table is visible. Every statement
// is cut off after RequestStatementTimeout. maxConns is the pool's size
// (DATABASE_MAX_CONNS); 0 keeps the URL's pool_max_conns or pgx's default.
func OpenRequests(ctx context.Context, url string, tracer pgx.QueryTracer, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(url, tracer)
	if err != nil {
		return nil, err
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ConnConfig.RuntimeParams["role"] = RequestRole
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = RequestStatementTimeout
	cfg.PrepareConn = prepareConn
	pool, err := open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("request pool (role %s, created by the migrations): %w", RequestRole, err)
	}
	return pool, nil
}

// prepareConn points the connection at the context's company and plan mode
// (WithReusedPlans). A connection remembers both, so a run of requests of
// one company and kind (the common case: a pool per instance, most traffic
// from few companies) costs no extra round trip; a change costs one.
func prepareConn(ctx context.Context, conn *pgx.Conn) (bool, error) {
	want := ""
	if id, ok := CompanyFrom(ctx); ok {
		want = id.String()
	}
	plans := CustomPlans
	if PlansReused(ctx) {
		plans = ReusedPlans
	}
	data := conn.PgConn().CustomData()
	have, _ := data[companyKey].(string)
	havePlans, ok := data[plansKey].(string)
	if !ok {
		havePlans = CustomPlans // the pool's startup setting (poolConfig)
	}
	if have == want && havePlans == plans {
		return true, nil
	}
	// Sent on the connection beneath pgx: this is the connection's set-up,
	// not one of the request's statements (query tracers count those). The
	// values are a formatted UUID or empty and one of two constants, safe
	// to write as literals.
	sql := "SELECT set_config('" + companySetting + "', '" + want + "', false), " +
		"set_config('plan_cache_mode', '" + plans + "', false)"
	if _, err := conn.PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		// The connection's state is unknown: destroy it, fail the query.
		return false, fmt.Errorf("set the request's company and plan mode on the connection: %w", err)
	}
	data[companyKey] = want
	data[plansKey] = plans
	return true, nil
}

type plansCtxKey struct{}

// WithReusedPlans returns a context whose statements on the request pool may
// run on a generic plan that PostgreSQL keeps for a prepared statement
// (plan_cache_mode = auto) instead of a plan made for each execution's
// values. It is for requests whose statements all read the rows of one
// record found by its key (a driver and its documents, finance and rating):
// their best plan does not depend on how big the company is, and planning
// them cost more than running them (docs/operations.md, "Query plans").
// Statements that read across a company (lists, boards, reports, exports)
// must not run under it. A statement that pages a record's rows under it
// writes only the filters in use (no "$3 IS NULL OR …", which a generic
// plan cannot see through) and picks its page before its joins
// (docs/performance.md, "Optional filters and reused plans"); one that
// reads one driver takes its id as a value, not an array, which a generic
// plan costs as ten (docs/performance.md, "Reads of one driver's rating
// inputs").
func WithReusedPlans(ctx context.Context) context.Context {
	return context.WithValue(ctx, plansCtxKey{}, true)
}

// PlansReused reports whether WithReusedPlans marked the context.
func PlansReused(ctx context.Context) bool {
	reused, _ := ctx.Value(plansCtxKey{}).(bool)
	return reused
}

type companyCtxKey struct{}

// WithCompany returns a context whose queries on the request pool see the
// rows of company (and only those). The authentication middleware sets it
// once the caller is known.
func WithCompany(ctx context.Context, company uuid.UUID) context.Context {
	return context.WithValue(ctx, companyCtxKey{}, company)
}

// CompanyFrom returns the company WithCompany put in the context.
func CompanyFrom(ctx context.Context) (uuid.UUID, bool) {
	id, ok := ctx.Value(companyCtxKey{}).(uuid.UUID)
	return id, ok && id != uuid.Nil
}

// CompanyOf returns the company owning the live (not soft-deleted) row id of
// table, seen past row-level security, or false when there is no such row.
// It is the one question a request may ask about another company's record:
// the check order answers 404 for a record that does not exist and 403 for
// another company's, which the policies alone cannot tell apart.
func CompanyOf(ctx context.Context, db DBTX, table string, id uuid.UUID) (uuid.UUID, bool, error) {
	var company *uuid.UUID
	if err := db.QueryRow(ctx, `SELECT konvoj_row_company($1::regclass, $2)`, table, id).Scan(&company); err != nil {
		return uuid.Nil, false, fmt.Errorf("owner of %s %s: %w", table, id, err)
	}
	if company == nil {
		return uuid.Nil, false, nil
	}
	return *company, true, nil
}
