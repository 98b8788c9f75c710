package countries

import "testing"

func TestValid(t *testing.T) {
	// 249 assigned codes plus XK.
	if len(codes) != 250 {
		t.Fatalf("%d codes, want 250", len(codes))
	}
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"CZ", true}, {"SK", true}, {"UA", true}, {"XK", true},
		{"cz", false}, {"XX", false}, {"UK", false}, {"CZE", false}, {"", false},
	} {
		if got := Valid(tc.code); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.code, got, tc.want)
		}
	}
	if got := Normalize(" cz "); got != "CZ" {
		t.Errorf("Normalize = %q", got)
	}
}
