package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
)

// literalizer turns a statement and its arguments into one SQL text with
// the arguments written as literals. Each argument is typed the way
// PostgreSQL typed the parameter when the server ran the statement: the
// statement is prepared (unnamed, nothing executed) to learn each
// parameter's type, the Go value is encoded to that type's text form by
// pgx's own type map (as the server's pgx does on the wire), and written
// as a quoted literal with an explicit cast: '…'::uuid, '{a,b}'::text[],
// '2026-10-01'::date, '12.50'::numeric, NULL::text. So the replay plans
// exactly what the request planned.
type literalizer struct {
	names map[uint32]string // type OID → format_type
}

func newLiteralizer() *literalizer { return &literalizer{names: map[uint32]string{}} }

var placeholder = regexp.MustCompile(`\$(\d+)`)

func (l *literalizer) inline(ctx context.Context, db *pgxpool.Pool, sql string, args []any) (string, error) {
	if len(args) == 0 {
		return sql, nil
	}
	_, lits, err := l.literals(ctx, db, sql, args)
	if err != nil {
		return "", err
	}
	var ferr error
	out := placeholder.ReplaceAllStringFunc(sql, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		if n < 1 || n > len(lits) {
			ferr = fmt.Errorf("placeholder %s without argument", p)
			return p
		}
		return lits[n-1]
	})
	return out, ferr
}

// prepared writes the statement as a prepared statement of its own name
// (s_ and a hash of its text) and the execution of it with the arguments
// as literals: "PREPARE s_…(uuid, text[]) AS …" and "EXECUTE s_…('…'::uuid,
// '{a}'::text[])". Executed more than five times on one connection with
// plan_cache_mode = auto, it gets the generic plan the server's prepared
// statement gets.
func (l *literalizer) prepared(ctx context.Context, db *pgxpool.Pool, sql string, args []any) (name, prepare, execute string, err error) {
	name = fmt.Sprintf("s_%x", sha256.Sum256([]byte(sql)))[:14]
	types, lits, err := l.literals(ctx, db, sql, args)
	if err != nil {
		return "", "", "", err
	}
	if len(types) == 0 {
		return name, "PREPARE " + name + " AS " + sql, "EXECUTE " + name, nil
	}
	return name, "PREPARE " + name + "(" + strings.Join(types, ", ") + ") AS " + sql,
		"EXECUTE " + name + "(" + strings.Join(lits, ", ") + ")", nil
}

// literals returns the statement's parameter types and its arguments as
// literals of those types.
func (l *literalizer) literals(ctx context.Context, db *pgxpool.Pool, sql string, args []any) (types, lits []string, err error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Release()
	desc, err := conn.Conn().PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("prepare to learn parameter types: %w", err)
	}
	if len(desc.ParamOIDs) != len(args) {
		return nil, nil, fmt.Errorf("statement has %d parameters, %d arguments were passed", len(desc.ParamOIDs), len(args))
	}
	types = make([]string, len(args))
	lits = make([]string, len(args))
	m := conn.Conn().TypeMap()
	for i, a := range args {
		oid := desc.ParamOIDs[i]
		if types[i], err = l.typeName(ctx, conn.Conn().PgConn(), oid); err != nil {
			return nil, nil, err
		}
		if lits[i], err = postgres.Literal(m, oid, types[i], a); err != nil {
			return nil, nil, fmt.Errorf("argument $%d: %w", i+1, err)
		}
	}
	return types, lits, nil
}

// typeName is format_type(oid): "uuid", "text[]", "timestamp with time zone".
func (l *literalizer) typeName(ctx context.Context, conn *pgconn.PgConn, oid uint32) (string, error) {
	if n, ok := l.names[oid]; ok {
		return n, nil
	}
	res := conn.ExecParams(ctx, "SELECT format_type($1::oid, NULL)", [][]byte{[]byte(strconv.FormatUint(uint64(oid), 10))}, nil, nil, nil).Read()
	if res.Err != nil {
		return "", fmt.Errorf("name of type %d: %w", oid, res.Err)
	}
	if len(res.Rows) != 1 {
		return "", fmt.Errorf("name of type %d: no row", oid)
	}
	n := string(res.Rows[0][0])
	l.names[oid] = n
	return n, nil
}
