package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
)

// Literal writes v as an SQL literal of the type (oid, name), encoded by
// pgx's type map as pgx sends it: NULL::name for a nil value, else the
// text form quoted and cast ('…'::uuid, '{a,b}'::text[]). It is for
// statements that take no parameters, such as EXECUTE under EXPLAIN, and
// for the benchmark's replays (cmd/loadbench); never for a request's own
// statements, whose values travel as parameters.
func Literal(m *pgtype.Map, oid uint32, name string, v any) (string, error) {
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
