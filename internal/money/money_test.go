package money

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/shopspring/decimal"
)

func TestInputParse(t *testing.T) {
	tests := []struct {
		raw  string
		want string // "" means an error is expected
		msg  string
	}{
		{`1250`, "1250.00", ""},
		{`1250.5`, "1250.50", ""},
		{`"1250.50"`, "1250.50", ""},
		{`-0.10`, "-0.10", ""},
		{`"-12"`, "-12.00", ""},
		{`0`, "0.00", ""},
		{`1.500`, "1.50", ""},      // trailing zeros carry no third decimal
		{`1.5e2`, "150.00", ""},    // JSON allows exponents
		{`12345e-2`, "123.45", ""}, // and negative ones
		{`99999999.99`, "99999999.99", ""},
		{`-99999999.99`, "-99999999.99", ""},
		{`0.1000000000000000055511151231257827`, "", msgPlaces}, // what a float would carry
		{`12.345`, "", msgPlaces},
		{`"12.345"`, "", msgPlaces},
		{`1e-3`, "", msgPlaces},
		{`100000000`, "", msgRange},
		{`-100000000.00`, "", msgRange},
		{`1e8`, "", msgRange},
		{`1e999999999`, "", msgRange},
		{`1e-999999999`, "", msgPlaces},
		{`"1e2"`, "", msgNotNumber}, // strings hold plain decimals only
		{`"12,50"`, "", msgNotNumber},
		{`"abc"`, "", msgNotNumber},
		{`""`, "", msgNotNumber},
		{`true`, "", msgNotNumber},
		{`{}`, "", msgNotNumber},
		{`"1234567890123456789012345678901234567890123"`, "", msgNotNumber},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			var in Input
			if err := json.Unmarshal([]byte(tt.raw), &in); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			got, err := in.Parse()
			if tt.want == "" {
				var ie *InputError
				if !errors.As(err, &ie) || ie.msg != tt.msg {
					t.Fatalf("Parse(%s) = %v, %v; want error %q", tt.raw, got, err, tt.msg)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("Parse(%s) = %v, %v; want %s", tt.raw, got, err, tt.want)
			}
		})
	}
}

func TestInputGiven(t *testing.T) {
	var body struct {
		A Input `json:"a"`
		B Input `json:"b"`
		C Input `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a": null, "b": 0}`), &body); err != nil {
		t.Fatal(err)
	}
	if body.A.Given() || !body.B.Given() || body.C.Given() {
		t.Fatalf("Given: a=%v b=%v c=%v, want false true false", body.A.Given(), body.B.Given(), body.C.Given())
	}
}

func TestMarshalTwoDecimals(t *testing.T) {
	v := struct {
		A Amount `json:"a"`
		B Amount `json:"b"`
		C Amount `json:"c"`
	}{mustParse("1250"), mustParse("-0.5"), Zero}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":1250.00,"b":-0.50,"c":0.00}` {
		t.Fatalf("got %s", b)
	}
}

func TestExactSums(t *testing.T) {
	sum := mustParse("0.10").Add(mustParse("0.20"))
	if !sum.Equal(mustParse("0.30")) || sum.String() != "0.30" {
		t.Fatalf("0.10 + 0.20 = %s", sum)
	}
}

func TestErrorMessageNamesField(t *testing.T) {
	_, err := Parse("1.234")
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v", err)
	}
	if got := ie.Message("amount"); got != "The amount field may have at most 2 decimal places." {
		t.Fatalf("message %q", got)
	}
}

func TestScan(t *testing.T) {
	var a Amount
	if err := a.Scan("12.3"); err != nil || a.String() != "12.30" {
		t.Fatalf("Scan = %v, %v", a, err)
	}
	if err := a.Scan(nil); err == nil {
		t.Fatal("Scan(nil) should fail")
	}
}

// mustParse parses a plain decimal string and fails loudly on a typo in a
// test's constant.
func mustParse(s string) Amount {
	a, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// TestMarshalMatchesString checks the integer path of MarshalJSON and
// String against decimal's own formatting at the edges of a cent: signs, amounts
// under one crown, the largest coefficient it takes (18 digits) and the
// first it leaves to String, amounts with more places than two before New
// rounds them, and sums.
func TestMarshalMatchesString(t *testing.T) {
	var values []Amount
	for _, c := range []int64{0, 1, -1, 5, -5, 9, 10, 99, -99, 100, -100, 101, 125000, -125050, 9999999999, 999999999999999999, -999999999999999999} {
		values = append(values, New(decimal.New(c, -2)))
	}
	for _, s := range []string{"0.005", "-0.005", "1.999", "-1.994", "12", "1e3", "0.10", "99999999.99", "-99999999.99", "1234567890123456789.12", "-1234567890123456789.12", "99999999999999999.99", "-99999999999999999.99"} {
		values = append(values, New(decimal.RequireFromString(s)))
	}
	values = append(values, mustParse("0.10").Add(mustParse("0.20")), mustParse("5").Sub(mustParse("7.25")), mustParse("3.5").Neg(), Zero)
	for _, a := range values {
		want := a.d.StringFixed(Places)
		b, err := a.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want || a.String() != want {
			t.Errorf("%s (exponent %d): MarshalJSON wrote %s, String %s", want, a.d.Exponent(), b, a)
		}
	}
}
