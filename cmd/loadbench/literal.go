package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
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
	conn, err := db.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	desc, err := conn.Conn().PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return "", fmt.Errorf("prepare to learn parameter types: %w", err)
	}
	if len(desc.ParamOIDs) != len(args) {
		return "", fmt.Errorf("statement has %d parameters, %d arguments were passed", len(desc.ParamOIDs), len(args))
	}
	lits := make([]string, len(args))
	m := conn.Conn().TypeMap()
	for i, a := range args {
		oid := desc.ParamOIDs[i]
		name, err := l.typeName(ctx, conn.Conn().PgConn(), oid)
		if err != nil {
			return "", err
		}
		lits[i], err = literal(m, oid, name, a)
		if err != nil {
			return "", fmt.Errorf("argument $%d: %w", i+1, err)
		}
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

// literal writes v as a literal of the type (oid, name): NULL::name for a
// nil value, else the text form quoted and cast.
func literal(m *pgtype.Map, oid uint32, name string, v any) (string, error) {
	// A non-nil buffer: Encode answers nil for NULL, and an empty value
	// ('' of text) must stay distinguishable from it.
	buf, err := m.Encode(oid, pgtype.TextFormatCode, v, make([]byte, 0, 64))
	if err != nil {
		return "", fmt.Errorf("encode %T as %s: %w", v, name, err)
	}
	if buf == nil {
		return "NULL::" + name, nil
	}
	return "'" + strings.ReplaceAll(string(buf), "'", "''") + "'::" + name, nil
}
