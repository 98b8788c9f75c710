package rating_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// The ranking's weakest component is kept on the snapshot by whoever writes
// it: the applicable component with the lowest score, on a tie the heavier,
// then the first in display order; none when nothing applies. Rewriting the
// components moves it.
func TestBoardWeakestComponent(t *testing.T) {
	f := ratingtest.New(t, pgtest.New(t))
	month := rating.MonthOf(2026, 3)
	comp := func(score, weight float64, applicable bool) map[string]any {
		return map[string]any{"score": score, "weight": weight, "applicable": applicable, "contribution": 0, "details": ""}
	}
	cases := []struct {
		name       string
		components map[string]any
		metric     string
		score      string
	}{
		{"lowest wins", map[string]any{
			"document_expiration": comp(80, 30, true), "penalties_count": comp(40, 20, true), "activity": comp(10, 10, false)},
			"penalties_count", "40"},
		{"tie: the heavier", map[string]any{
			"penalties_amount": comp(50, 20, true), "profile_completeness": comp(50, 10, true), "document_expiration": comp(50, 30, true)},
			"document_expiration", "50"},
		{"tie and same weight: display order", map[string]any{
			"activity": comp(60, 10, true), "document_upload_timeliness": comp(60, 10, true)},
			"document_upload_timeliness", "60"},
		{"nothing applies", map[string]any{"activity": comp(0, 10, false)}, "", "0"},
	}
	ids := map[uuid.UUID]int{}
	for i, c := range cases {
		d := f.Driver()
		ids[d] = i
		f.Exec(`INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, components)
			VALUES ($1, $2, $3, $4, $5)`, f.Company, d, month.First(), 90-i, c.components)
	}
	hr := auth.Principal{CompanyID: f.Company, Role: auth.RoleHRManager, CompanyTimezone: "Europe/Prague"}
	board := func() []rating.BoardRow {
		t.Helper()
		rows, _, err := rating.NewService(f.DB).Board(ctx, hr, func() (*rating.Period, error) { return &month, nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(cases) {
			t.Fatalf("board has %d rows, want %d", len(rows), len(cases))
		}
		return rows
	}
	for _, r := range board() {
		c := cases[ids[r.DriverID]]
		if r.Weakest != c.metric || (c.metric != "" && r.WeakestScore.String() != c.score) {
			t.Errorf("%s: weakest %q %s, want %q %s", c.name, r.Weakest, r.WeakestScore, c.metric, c.score)
		}
	}

	// Recalculated: the components change, and so does the weakest.
	f.Exec(`UPDATE rating_snapshots SET components = jsonb_set(components, '{document_expiration,score}', '5')
		WHERE company_id = $1 AND components ? 'document_expiration' AND (components->'document_expiration'->>'applicable')::boolean`, f.Company)
	for _, r := range board() {
		c := cases[ids[r.DriverID]]
		want := c.metric
		if _, ok := c.components["document_expiration"]; ok {
			want = "document_expiration"
		}
		if r.Weakest != want {
			t.Errorf("%s after the update: weakest %q, want %q", c.name, r.Weakest, want)
		}
	}
}
