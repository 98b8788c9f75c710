package export_test

import (
	"testing"

	"github.com/konvoj/konvoj/internal/export"
)

// TestFileName: names of every supported language become plain ASCII,
// words joined by single dashes, nothing left at the ends.
func TestFileName(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
	}{
		{[]string{"DRV-0042", "Jiří Dvořák", "2026-11"}, "DRV-0042-Jiri-Dvorak-2026-11"},
		{[]string{"DRV-0007", "Łukasz Wądołowski", "2026-11"}, "DRV-0007-Lukasz-Wadolowski-2026-11"},
		{[]string{"DRV-0100", "Олександр Ґонта", "2026-11"}, "DRV-0100-Oleksandr-Gonta-2026-11"},
		{[]string{"DRV-0101", "Ștefan Țăran", "2026-11", "EUR"}, "DRV-0101-Stefan-Taran-2026-11-EUR"},
		{[]string{"DRV-0102", "  O'Brien / \"Jr.\"  ", "2026-11"}, "DRV-0102-O-Brien-Jr-2026-11"},
		{[]string{"DRV-0103", "李 🙂", "2026-11"}, "DRV-0103-2026-11"},
		{[]string{"", "Щука Юлія", ""}, "Shchuka-Yuliya"},
		{[]string{"Їжак Йосип Євген"}, "Yizhak-Yosyp-Yevhen"},
		{[]string{"Гальченко Ілля"}, "Halchenko-Illya"},
	}
	for _, c := range cases {
		if got := export.FileName(c.parts...); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.parts, got, c.want)
		}
	}
}
