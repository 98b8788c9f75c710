package phones

import "testing"

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		text, country, want string
		problem             Problem
	}{
		{"+420 777 123 456", "", "+420777123456", OK},
		{"+420 777 123 456", "PL", "+420777123456", OK},
		{"00420 777-123-456", "", "+420777123456", OK},
		{"777 123 456", "CZ", "+420777123456", OK},
		{"(0)30 1234 5678", "DE", "+493012345678", OK},
		{"601 234 567", "PL", "+48601234567", OK},
		{"+48 601 234 567", "CZ", "+48601234567", OK},
		{"777 123 456", "", "777 123 456", OK},
		{"+420 abc", "CZ", "", NotANumber},
		{"+420 777 ABC 456", "CZ", "", NotANumber},
		{"1-800-FLOWERS", "US", "", NotANumber},
		{"+420 123", "CZ", "+420 123", OK},
		{"+999 777 123 456", "", "+999 777 123 456", OK},
		{"=1+1", "CZ", "", NotANumber},
		{"777 12+3 456", "CZ", "", NotANumber},
		{"   ", "CZ", "", NotANumber},
		{"111", "CZ", "111", OK},
	} {
		got, problem := Normalize(c.text, c.country)
		if got != c.want || problem != c.problem {
			t.Errorf("Normalize(%q, %q) = %q, %v; want %q, %v", c.text, c.country, got, problem, c.want, c.problem)
		}
	}
}

func TestDisplay(t *testing.T) {
	for in, want := range map[string]string{
		"+420777123456": "+420 777 123 456",
		"+48601234567":  "+48 601 234 567",
		"777 123":       "777 123",
		"":              "",
	} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
	}
}
