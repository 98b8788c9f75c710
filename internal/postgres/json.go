package postgres

import (
	"encoding/json"

	gojson "github.com/goccy/go-json"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerJSON makes the connection decode json and jsonb values into Go
// values with goccy/go-json, the library the answers are encoded with
// (web/json.go), instead of encoding/json, which walks every value by
// reflection, and a past month's rating does little else than decode its
// stored components (an object of six metrics), so reflection would be a
// large share of that read's processor time (docs/performance.md,
// "Decoding JSON columns").
// TestJSONColumnsDecodeAsStandard checks that both give the same values.
// Parameters are still encoded by encoding/json.
func registerJSON(conn *pgx.Conn) {
	m := conn.TypeMap()
	js := &pgtype.Type{Name: "json", OID: pgtype.JSONOID, Codec: &pgtype.JSONCodec{Marshal: json.Marshal, Unmarshal: gojson.Unmarshal}}
	jsb := &pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID, Codec: &pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: gojson.Unmarshal}}
	m.RegisterType(js)
	m.RegisterType(jsb)
	m.RegisterType(&pgtype.Type{Name: "_json", OID: pgtype.JSONArrayOID, Codec: &pgtype.ArrayCodec{ElementType: js}})
	m.RegisterType(&pgtype.Type{Name: "_jsonb", OID: pgtype.JSONBArrayOID, Codec: &pgtype.ArrayCodec{ElementType: jsb}})
}
