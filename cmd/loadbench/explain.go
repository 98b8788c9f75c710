package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// explainLists runs EXPLAIN (ANALYZE, BUFFERS) of the list endpoints' SQL
// (the first captured request of each, every statement that reads) as the
// server's request role and company, prints the plans and writes them to
// dir/<endpoint>.txt with the date and the machine's load: the plans that
// docs/query-plans.md keeps. -explain runs this instead of the load runs.
func explainLists(ctx context.Context, replay, dir string, names []string, scripts [][]string) error {
	conn, err := pgx.Connect(ctx, replay)
	if err != nil {
		return fmt.Errorf("connect as the request role: %w", err)
	}
	defer conn.Close(ctx)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, name := range names {
		var b strings.Builder
		fmt.Fprintf(&b, "-- %s: EXPLAIN (ANALYZE, BUFFERS) on %s, %s\n", name, time.Now().UTC().Format("2006-01-02 15:04 MST"), machine())
		for _, st := range statementsOf(scripts[i][0]) {
			// Warm the cache once, so the plan shows the steady state the
			// load runs see, not the first read from disk.
			if _, err := conn.Exec(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+st, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				return fmt.Errorf("explain %s: %w", name, err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("explain %s: %w", name, err)
			}
			fmt.Fprintf(&b, "\n%s\n\n%s\n", st, strings.Join(lines, "\n"))
		}
		fmt.Print(b.String())
		if err := os.WriteFile(filepath.Join(dir, slug(name)+".txt"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// statementsOf splits a pgbench script into its reading statements (the
// principal's lookup included), leaving out comments.
func statementsOf(script string) []string {
	var out []string
	for _, st := range strings.Split(script, ";\n") {
		var kept []string
		for _, l := range strings.Split(st, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				kept = append(kept, l)
			}
		}
		s := strings.TrimSpace(strings.Join(kept, "\n"))
		up := strings.ToUpper(s)
		if strings.HasPrefix(up, "SELECT") || strings.HasPrefix(up, "WITH") {
			out = append(out, s)
		}
	}
	return out
}
