package textin

import "testing"

func TestBadAndStripBidi(t *testing.T) {
	for s, want := range map[string]bool{"Jan": false, "Žluťoučký kůň": false, "a\x00b": true, "\xff\xfe": true, "": false} {
		if Bad(s) != want {
			t.Errorf("Bad(%q) = %v, want %v", s, !want, want)
		}
	}
	if got := StripBidi("Jan\u202Efdp.exe\u2066x\u200F"); got != "Janfdp.exex" {
		t.Errorf("StripBidi: %q", got)
	}
}
