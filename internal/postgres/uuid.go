package postgres

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerUUID makes the connection's type map encode and scan uuid.UUID
// (google/uuid) as the 16 bytes it is. pgx knows only its own pgtype.UUID:
// a uuid.UUID parameter went through its driver.Valuer (the text form),
// failed the binary encoding with an error built and thrown away, was
// parsed back and encoded again; a scanned one was formatted as text and
// parsed by uuid.UUID.Scan. Every statement has a few ids in and out, so
// that detour would be paid several times by every request
// (docs/performance.md, "Single-record reads").
func registerUUID(conn *pgx.Conn) {
	m := conn.TypeMap()
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	// The array type holds its element type: register it again on the new one.
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}

// uuidCodec is pgtype.UUIDCodec that also takes uuid.UUID parameters and
// scans into *uuid.UUID directly.
type uuidCodec struct{ pgtype.UUIDCodec }

// PlanEncode encodes a uuid.UUID as its 16 bytes (binary) or its text,
// anything else as pgx does.
func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(uuid.UUID); ok {
		if format == pgtype.BinaryFormatCode {
			return encodeUUIDBinary{}
		}
		return encodeUUIDText{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

// PlanScan scans into a *uuid.UUID from the binary form directly, anything
// else as pgx does.
func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanUUIDBinary{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

type encodeUUIDBinary struct{}

func (encodeUUIDBinary) Encode(value any, buf []byte) ([]byte, error) {
	u := value.(uuid.UUID)
	return append(buf, u[:]...), nil
}

type encodeUUIDText struct{}

func (encodeUUIDText) Encode(value any, buf []byte) ([]byte, error) {
	return append(buf, value.(uuid.UUID).String()...), nil
}

type scanUUIDBinary struct{}

func (scanUUIDBinary) Scan(src []byte, target any) error {
	u := target.(*uuid.UUID)
	if src == nil {
		// As uuid.UUID.Scan with NULL: nothing to set. A nullable column
		// is scanned into a **uuid.UUID, which pgx sets to nil itself.
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for uuid: %d", len(src))
	}
	copy(u[:], src)
	return nil
}
