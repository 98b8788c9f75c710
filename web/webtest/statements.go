package webtest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Statement is one SQL statement the request pool ran, with its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// String is the statement on one line, for failure messages.
func (s Statement) String() string {
	return strings.Join(strings.Fields(s.SQL), " ")
}

// Statements is a pgx tracer that records every statement of the request
// pool, a statement of a batch one by one: install it with WithTracer and
// read what a request ran with Take.
type Statements struct {
	mu   sync.Mutex
	list []Statement
}

// TraceQueryStart records a statement sent alone.
func (s *Statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL, d.Args)
	return ctx
}

// TraceQueryEnd does nothing.
func (s *Statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart does nothing: the batch's statements are recorded one by one.
func (s *Statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery records a statement of a batch.
func (s *Statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL, d.Args)
}

// TraceBatchEnd does nothing.
func (s *Statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (s *Statements) add(sql string, args []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, Statement{SQL: sql, Args: args})
}

// Take returns the statements since the last Take.
func (s *Statements) Take() []Statement {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.list
	s.list = nil
	return l
}

// fromTable finds the tables a statement reads (after FROM or JOIN) with
// their alias, if any.
var fromTable = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+([a-z_][a-z0-9_]*)(?:\s+(?:AS\s+)?([a-z_][a-z0-9_]*))?`)

// keyParam finds "<alias>.id = $n" and a bare "id = $n".
var keyParam = regexp.MustCompile(`(?i)(?:\b([a-z_][a-z0-9_]*)\.|[^.a-z_])id\s*=\s*\$(\d+)`)

// notAlias are words that may follow a table name but are no alias.
var notAlias = map[string]bool{"where": true, "on": true, "join": true, "left": true, "inner": true, "order": true,
	"group": true, "limit": true, "for": true, "using": true, "cross": true, "full": true, "right": true, "natural": true}

// ReadTwice names the rows that more than one of the statements read: a row
// is a table a SELECT reads, found by its key ("t.id = $n", or "id = $n" on
// a table without an alias). A request that needs a row once should read it
// once and pass the record on.
func ReadTwice(list []Statement) []string {
	seen := map[string]int{}
	var twice []string
	for i, st := range list {
		sql := strings.TrimSpace(st.SQL)
		head := strings.ToUpper(sql[:min(len(sql), 6)])
		if head != "SELECT" && !strings.HasPrefix(head, "WITH") {
			continue
		}
		aliases := map[string]string{} // alias (or table) → table
		for _, m := range fromTable.FindAllStringSubmatch(sql, -1) {
			aliases[strings.ToLower(m[1])] = m[1]
			if a := strings.ToLower(m[2]); a != "" && !notAlias[a] {
				aliases[a] = m[1]
			}
		}
		for _, m := range keyParam.FindAllStringSubmatch(sql, -1) {
			table := ""
			if m[1] != "" {
				table = aliases[strings.ToLower(m[1])]
			} else if len(aliases) == 1 {
				for _, t := range aliases {
					table = t
				}
			}
			n := 0
			fmt.Sscan(m[2], &n)
			if table == "" || n < 1 || n > len(st.Args) {
				continue
			}
			key := fmt.Sprintf("%s %v", table, st.Args[n-1])
			if first, dup := seen[key]; dup && first != i {
				twice = append(twice, fmt.Sprintf("%s read by statements %d and %d", key, first, i))
				continue
			}
			seen[key] = i
		}
	}
	return twice
}

// withoutEventReadBack leaves out the SELECTs right before an event's write
// (webhooks.Emit's statement, which writes the live event): an event
// carries its entity as the change left it, so the entity is read back once
// after the write, on purpose (docs/live-updates.md). Every other statement
// is held to reading a row once.
func withoutEventReadBack(list []Statement) []Statement {
	out := make([]Statement, 0, len(list))
	for i, st := range list {
		readBack := false
		for j := i; j < len(list); j++ {
			sql := strings.ToUpper(strings.TrimSpace(list[j].SQL))
			if strings.Contains(sql, "INSERT INTO LIVE_EVENTS") {
				readBack = j > i
				break
			}
			if !strings.HasPrefix(sql, "SELECT") && !strings.HasPrefix(sql, "WITH CO AS") {
				break
			}
		}
		if !readBack {
			out = append(out, st)
		}
	}
	return out
}

// CheckStatements fails t when the statements since the last Take number
// more than budget or read a row twice, listing them; it logs them
// otherwise.
func (s *Statements) CheckStatements(t testing.TB, name string, budget int) {
	t.Helper()
	list := s.Take()
	var b strings.Builder
	for i, st := range list {
		fmt.Fprintf(&b, "\n  %2d %s", i, st)
	}
	if len(list) > budget {
		t.Errorf("%s ran %d statements, budget %d:%s", name, len(list), budget, b.String())
	}
	if twice := ReadTwice(withoutEventReadBack(list)); len(twice) > 0 {
		t.Errorf("%s read rows twice: %v%s", name, twice, b.String())
	}
	t.Logf("%s: %d statements%s", name, len(list), b.String())
}
