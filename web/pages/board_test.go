package pages

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/units"
)

// The board says why a unit is not ready in words, naming the holder by
// its name or plate and the day with its weekday: "expired on" the last
// valid day once it has passed, "runs out on" it when it is still ahead
// (a trip's preview).
func TestBoardReasonsInWords(t *testing.T) {
	today := civil.NewDate(2026, 11, 28) // a Saturday
	names := holderNames{Driver: "Jan Novák", Vehicle: "1AB 2345", Trailer: "2AB 3456"}
	since := func(d civil.Date) *civil.Date { return &d }
	reasons := []units.Reason{
		{Code: units.DriverNotActive, HolderType: "driver", HolderID: uuid.New()},
		{Code: units.DocumentMissing, HolderType: "vehicle", HolderID: uuid.New(), DocumentType: "technical_inspection"},
		{Code: units.DocumentExpired, HolderType: "trailer", HolderID: uuid.New(), DocumentType: "technical_inspection", Since: since(civil.NewDate(2026, 11, 4))},
		{Code: units.DocumentExpired, HolderType: "trailer", HolderID: uuid.New(), DocumentType: "technical_inspection", Since: since(civil.NewDate(2026, 12, 3))},
	}
	got := strings.Join(reasonTexts(context.Background(), i18n.EN, today, names, reasons), " | ")
	want := "Driver Jan Novák: not active (on leave, inactive or left) | Vehicle 1AB 2345: Technical inspection missing | " +
		"Trailer 2AB 3456: Technical inspection expired on Tue 3\u00a0Nov\u00a02026 | Trailer 2AB 3456: Technical inspection runs out on Wed 2\u00a0Dec\u00a02026"
	if got != want {
		t.Errorf("reasons:\n got %q\nwant %q", got, want)
	}
}
