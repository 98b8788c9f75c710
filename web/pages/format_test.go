package pages

import (
	"testing"

	"github.com/konvoj/konvoj/internal/i18n"
)

// Sizes are in binary units everywhere (the README's "20 MiB" is the
// default UPLOAD_MAX_BYTES of 20971520 bytes).
func TestFormatSizeUsesBinaryUnits(t *testing.T) {
	for _, tc := range []struct {
		n      int64
		en, cs string
	}{
		{0, "0\u00a0B", "0\u00a0B"},
		{1023, "1023\u00a0B", "1023\u00a0B"},
		{1024, "1\u00a0KiB", "1\u00a0KiB"},
		{65536, "64\u00a0KiB", "64\u00a0KiB"},
		{850 << 10, "850\u00a0KiB", "850\u00a0KiB"},
		{1 << 20, "1\u00a0MiB", "1\u00a0MiB"},
		{12*(1<<20) + 512<<10, "12.5\u00a0MiB", "12,5\u00a0MiB"},
		{20971520, "20\u00a0MiB", "20\u00a0MiB"},
		{3 << 30, "3\u00a0GiB", "3\u00a0GiB"},
	} {
		if got := formatSize(i18n.EN, tc.n); got != tc.en {
			t.Errorf("formatSize(en, %d) = %q, want %q", tc.n, got, tc.en)
		}
		if got := formatSize(i18n.CS, tc.n); got != tc.cs {
			t.Errorf("formatSize(cs, %d) = %q, want %q", tc.n, got, tc.cs)
		}
	}
}
