package civil_test

import (
	"encoding/json"
	"testing"

	"github.com/konvoj/konvoj/internal/civil"
)

// A date is the string YYYY-MM-DD in JSON, inside structs and slices too,
// and reads back as the same date.
func TestDateJSON(t *testing.T) {
	in := struct {
		Day  civil.Date   `json:"day"`
		Days []civil.Date `json:"days"`
		None *civil.Date  `json:"none"`
	}{civil.NewDate(2026, 2, 28), []civil.Date{civil.NewDate(999, 12, 31), civil.NewDate(2026, 11, 1)}, nil}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"day":"2026-02-28","days":["0999-12-31","2026-11-01"],"none":null}` {
		t.Fatalf("%s %v", b, err)
	}
	out := in
	out.Day, out.Days = civil.Date{}, nil
	if err := json.Unmarshal(b, &out); err != nil || out.Day != in.Day || len(out.Days) != 2 || out.Days[1] != in.Days[1] {
		t.Fatalf("read back: %+v %v", out, err)
	}
}
