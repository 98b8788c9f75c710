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

func TestCodes(t *testing.T) {
	c := Codes()
	if len(c) < 240 || c[0] != "AD" || c[len(c)-1] != "ZW" {
		t.Fatalf("codes: %d, %v … %v", len(c), c[:1], c[len(c)-1:])
	}
	for i, code := range c {
		if !Valid(code) || (i > 0 && c[i-1] >= code) {
			t.Errorf("code %d %q out of order or invalid", i, code)
		}
	}
	c[0] = "XX"
	if Codes()[0] != "AD" {
		t.Error("Codes returns the package's own slice")
	}
}

func TestFromICAO(t *testing.T) {
	for in, want := range map[string]string{"CZE": "CZ", "SVK": "SK", "UKR": "UA", "POL": "PL", "ROU": "RO", "D<<": "DE", "D": "DE",
		"GBR": "GB", "GBD": "GB", "RKS": "XK", "UTO": "", "XXA": "", "UNO": "", "EUE": "", "": "", "CZ": ""} {
		got, ok := FromICAO(in)
		if got != want || ok != (want != "") {
			t.Errorf("FromICAO(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
