package fleet

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestStatusRangesMatchTheStatusRule: each document, with or without a
// file, with no expiry or one from three days ago to forty days ahead, is
// in exactly the range of statusRanges that names the status
// konvoj_document_status gives it.
func TestStatusRangesMatchTheStatusRule(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	sql := `WITH co AS (SELECT current_date AS today),
		dd AS (SELECT $1::uuid AS current_file_id, current_date + $2::integer AS valid_until)
		SELECT konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, co.today)`
	for _, st := range documents.Statuses {
		sql += `, coalesce((` + statusRanges[st] + `), false)`
	}
	sql += ` FROM co, dd`
	if len(statusRanges) != len(documents.Statuses) {
		t.Fatalf("%d ranges for %d statuses", len(statusRanges), len(documents.Statuses))
	}
	file := uuid.New()
	for _, f := range []*uuid.UUID{nil, &file} {
		offsets := []*int{nil}
		for d := -3; d <= 40; d++ {
			offsets = append(offsets, &d)
		}
		for _, off := range offsets {
			var status string
			in := make([]bool, len(documents.Statuses))
			targets := []any{&status}
			for i := range in {
				targets = append(targets, &in[i])
			}
			if err := db.QueryRow(ctx, sql, f, off).Scan(targets...); err != nil {
				t.Fatal(err)
			}
			for i, st := range documents.Statuses {
				if in[i] != (st == status) {
					t.Errorf("file %v, valid_until today%+v: status %s, in the range of %s: %v", f != nil, deref(off), status, st, in[i])
				}
			}
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return " (none)"
	}
	return *p
}
