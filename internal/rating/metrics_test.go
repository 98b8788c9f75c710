package rating

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var jan = MonthOf(2026, time.January)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func days(n int) *int { return &n }

func assertScore(t *testing.T, what string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Round(2).Equal(dec(want)) {
		t.Errorf("%s: score %s, want %s", what, got.Round(2), want)
	}
}

func TestDocumentExpiration(t *testing.T) {
	tests := []struct {
		name    string
		docs    []DocState
		want    string
		details string
	}{
		{"nothing required", nil, "100", "No document types are required."},
		{"all valid", []DocState{{Status: "valid", DaysLeft: days(31)}, {Status: "valid"}}, "100",
			"0 of 2 required documents expire within 30 days, 0 expired or missing (as of 2026-01-31)."},
		{"each status once", []DocState{
			{Status: "valid", DaysLeft: days(200)}, {Status: "warning", DaysLeft: days(30)},
			{Status: "expiring_soon", DaysLeft: days(0)}, {Status: "expired", DaysLeft: days(-1)}, {Status: "no_data"},
		}, "35", "2 of 5 required documents expire within 30 days, 2 expired or missing (as of 2026-01-31)."},
		{"warning edge 15 days", []DocState{{Status: "warning", DaysLeft: days(15)}, {Status: "expiring_soon", DaysLeft: days(14)}}, "37.5",
			"2 of 2 required documents expire within 30 days, 0 expired or missing (as of 2026-01-31)."},
		{"all missing", []DocState{{Status: "no_data"}, {Status: "no_data"}, {Status: "expired", DaysLeft: days(-30)}}, "0",
			"0 of 3 required documents expire within 30 days, 3 expired or missing (as of 2026-01-31)."},
		{"thirds", []DocState{{Status: "valid"}, {Status: "no_data"}, {Status: "no_data"}}, "33.33", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := documentExpiration(tt.docs, dec("30"), jan)
			assertScore(t, tt.name, c.Score, tt.want)
			if tt.details != "" && c.Details != tt.details {
				t.Errorf("details %q, want %q", c.Details, tt.details)
			}
			if !c.Applicable {
				t.Error("not applicable")
			}
		})
	}
	// warning_days only changes which documents the details call expiring.
	c := documentExpiration([]DocState{{Status: "valid", DaysLeft: days(45)}}, dec("60"), jan)
	assertScore(t, "warning_days 60", c.Score, "100")
	if !strings.HasPrefix(c.Details, "1 of 1 required documents expire within 60 days") {
		t.Errorf("details %q", c.Details)
	}
}

func TestPenaltiesCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		max  string
		want string
	}{
		{0, "5", "100"}, {1, "5", "80"}, {2, "5", "60"}, {5, "5", "0"}, {7, "5", "0"}, {1, "3", "66.67"}, {1, "1", "0"},
	} {
		c := penaltiesCount(tt.n, dec(tt.max), jan)
		assertScore(t, "penalties "+tt.max, c.Score, tt.want)
		if c.Raw == nil || c.Raw.IntPart() != int64(tt.n) {
			t.Errorf("raw %v, want %d", c.Raw, tt.n)
		}
	}
	if d := penaltiesCount(0, dec("5"), jan).Details; d != "No penalties with an incident in 2026-01 (limit 5)." {
		t.Errorf("details %q", d)
	}
	if d := penaltiesCount(1, dec("5"), jan).Details; d != "1 penalty with an incident in 2026-01 (limit 5)." {
		t.Errorf("details %q", d)
	}
}

func TestPenaltiesAmount(t *testing.T) {
	for _, tt := range []struct{ sum, want string }{
		{"0", "100"}, {"2500", "75"}, {"9999.99", "0"}, {"10000", "0"}, {"12000.50", "0"}, {"3333.33", "66.67"}, {"0.01", "100"},
	} {
		c := penaltiesAmount(dec(tt.sum), dec("10000"), jan, "CZK")
		assertScore(t, "amount "+tt.sum, c.Score, tt.want)
	}
	c := penaltiesAmount(dec("1500"), dec("10000"), jan, "CZK")
	if c.Details != "Penalties with an incident in 2026-01 total 1500.00 CZK (limit 10000.00 CZK)." {
		t.Errorf("details %q", c.Details)
	}
}

func TestProfileCompleteness(t *testing.T) {
	if len(ProfileFields) != 20 {
		t.Fatalf("the profile list has %d fields, docs/rating.md says 20", len(ProfileFields))
	}
	for _, tt := range []struct {
		filled   int
		required string
		want     string
	}{
		{0, "20", "0"}, {1, "20", "5"}, {10, "20", "50"}, {19, "20", "95"}, {20, "20", "100"},
		{15, "15", "100"}, {18, "15", "100"}, {5, "15", "33.33"}, {1, "1", "100"},
	} {
		c := profileCompleteness(ProfileFields[:tt.filled], dec(tt.required))
		assertScore(t, "profile", c.Score, tt.want)
	}
	c := profileCompleteness([]string{"first_name", "last_name", "email", "status", "not_a_field"}, dec("20"))
	assertScore(t, "unknown names ignored", c.Score, "20")
	if !strings.HasPrefix(c.Details, "4 of 20 profile fields filled; missing: middle_name, birth_date,") {
		t.Errorf("details %q", c.Details)
	}
	if d := profileCompleteness(ProfileFields, dec("20")).Details; d != "20 of 20 profile fields filled." {
		t.Errorf("details %q", d)
	}
}

func TestUploadTimeliness(t *testing.T) {
	for _, tt := range []struct {
		name   string
		delays []int
		avg    string
		want   string
	}{
		{"nothing needed renewal", nil, "7", "100"},
		{"renewed on the expiry day", []int{0}, "7", "100"},
		{"renewed early counts as 0", []int{-10}, "7", "100"},
		{"avg_days late", []int{7}, "7", "75"},
		{"4 × avg_days late", []int{28}, "7", "0"},
		{"beyond", []int{40}, "7", "0"},
		{"mean of several", []int{-5, 5}, "7", "91.07"},
		{"mean of several late", []int{14, 0, 7}, "7", "75"},
		{"decimal avg_days", []int{1}, "0.5", "50"},
	} {
		c := uploadTimeliness(tt.delays, dec(tt.avg), jan)
		assertScore(t, tt.name, c.Score, tt.want)
	}
	if d := uploadTimeliness([]int{3, 4}, dec("7"), jan).Details; d != "2 renewals in 2026-01, on average 3.5 days after the previous expiry (0 points at 28 days)." {
		t.Errorf("details %q", d)
	}
}

func TestActivity(t *testing.T) {
	for _, tt := range []struct {
		orders int
		min    string
		want   string
	}{
		{0, "8", "0"}, {1, "8", "12.5"}, {4, "8", "50"}, {8, "8", "100"}, {12, "8", "100"}, {1, "3", "33.33"},
	} {
		c := activity(tt.orders, true, dec(tt.min), jan)
		assertScore(t, "activity", c.Score, tt.want)
		if !c.Applicable {
			t.Error("activity with company orders is applicable")
		}
	}
	c := activity(0, false, dec("8"), jan)
	if c.Applicable || !c.Score.IsZero() || !strings.HasPrefix(c.Details, "Not applicable") {
		t.Errorf("no company orders: %+v", c)
	}
}

func cfgWith(edit func(c *Config)) Config {
	c := DefaultConfig()
	if edit != nil {
		edit(&c)
	}
	return c
}

func TestScoreTotal(t *testing.T) {
	// document_expiration 35, penalties_count 60, penalties_amount 75,
	// profile 50, timeliness 75, activity 50.
	in := Inputs{
		Documents: []DocState{
			{Status: "valid"}, {Status: "warning", DaysLeft: days(20)}, {Status: "expiring_soon", DaysLeft: days(3)},
			{Status: "expired", DaysLeft: days(-2)}, {Status: "no_data"},
		},
		Penalties: 2, PenaltiesAmount: dec("2500"), FilledFields: ProfileFields[:10],
		RenewalDelays: []int{7}, Orders: 4, CompanyUsesOrders: true,
	}
	t.Run("all enabled", func(t *testing.T) {
		r := Score(in, DefaultConfig(), jan, "CZK")
		// 35×.3 + 60×.2 + 75×.2 + 50×.1 + 75×.1 + 50×.1 = 10.5+12+15+5+7.5+5 = 55
		if !r.Total.Equal(dec("55")) {
			t.Fatalf("total %s, want 55", r.Total)
		}
		if len(r.Components) != 6 {
			t.Fatalf("%d components", len(r.Components))
		}
		for _, c := range r.Components {
			if !c.Contribution.Equal(c.Score.Mul(c.Weight).Div(hundred)) {
				t.Errorf("%s: contribution %s ≠ score × weight / 100", c.Metric, c.Contribution)
			}
		}
	})
	t.Run("disabled metrics are left out of components and total", func(t *testing.T) {
		cfg := cfgWith(func(c *Config) {
			c.Metrics[1].IsEnabled = false // penalties_count 60, weight 20
			c.Metrics[5].IsEnabled = false // activity 50, weight 10
		})
		r := Score(in, cfg, jan, "CZK")
		// (10.5 + 15 + 5 + 7.5) × 100 / 70 = 54.2857… → 54.29
		if !r.Total.Equal(dec("54.29")) {
			t.Fatalf("total %s, want 54.29", r.Total)
		}
		for _, c := range r.Components {
			if c.Metric == PenaltiesCount || c.Metric == Activity {
				t.Errorf("disabled %s in components", c.Metric)
			}
		}
		if len(r.Components) != 4 {
			t.Errorf("%d components, want 4", len(r.Components))
		}
	})
	t.Run("activity not applicable without company orders", func(t *testing.T) {
		noOrders := in
		noOrders.CompanyUsesOrders = false
		r := Score(noOrders, DefaultConfig(), jan, "CZK")
		// (10.5+12+15+5+7.5) × 100 / 90 = 55.555… → 55.56
		if !r.Total.Equal(dec("55.56")) {
			t.Fatalf("total %s, want 55.56", r.Total)
		}
		act := r.Components[5]
		if act.Metric != Activity || act.Applicable || !act.Score.IsZero() || !act.Contribution.IsZero() {
			t.Errorf("activity component %+v", act)
		}
	})
	t.Run("enabled weights of 0 give 0", func(t *testing.T) {
		cfg := cfgWith(func(c *Config) {
			for i := range c.Metrics {
				c.Metrics[i].IsEnabled = i >= 3
				c.Metrics[i].Weight = decimal.Zero
			}
			c.Metrics[0].Weight = hundred
		})
		if r := Score(in, cfg, jan, "CZK"); !r.Total.IsZero() {
			t.Errorf("total %s", r.Total)
		}
	})
	t.Run("perfect driver", func(t *testing.T) {
		best := Inputs{Documents: []DocState{{Status: "valid"}}, FilledFields: ProfileFields, Orders: 8, CompanyUsesOrders: true}
		if r := Score(best, DefaultConfig(), jan, "CZK"); !r.Total.Equal(hundred) {
			t.Errorf("total %s", r.Total)
		}
	})
	t.Run("rounding to 2 decimals", func(t *testing.T) {
		odd := Inputs{Documents: []DocState{{Status: "valid"}, {Status: "no_data"}, {Status: "no_data"}},
			FilledFields: ProfileFields, Orders: 8, CompanyUsesOrders: true}
		// 33.33×.3 + 20 + 20 + 10 + 10 + 10 = 79.999 → 80.00
		if r := Score(odd, DefaultConfig(), jan, "CZK"); !r.Total.Equal(dec("80")) || r.Total.StringFixed(2) != "80.00" {
			t.Errorf("total %s", r.Total)
		}
	})
}

func TestTrend(t *testing.T) {
	pts := func(scores ...float64) []TrendPoint {
		var out []TrendPoint
		for i, s := range scores {
			out = append(out, TrendPoint{Period: PeriodOf(jan.First().AddMonths(i)), Score: s})
		}
		return out
	}
	for _, tt := range []struct {
		name string
		in   []TrendPoint
		want string
	}{
		{"no data", nil, TrendInsufficientData},
		{"one period", pts(70), TrendInsufficientData},
		{"two rising by 1", pts(70, 71), TrendImproving},
		{"two rising by 0.99", pts(70, 70.99), TrendStable},
		{"two falling by 1", pts(70, 69), TrendDeclining},
		{"flat", pts(50, 50, 50, 50), TrendStable},
		{"noisy but rising", pts(50, 58, 54, 62, 60, 70), TrendImproving},
		{"falling", pts(90, 80, 85, 70), TrendDeclining},
	} {
		if got := Trend(tt.in); got != tt.want {
			t.Errorf("%s: trend %s (slope %.3f), want %s", tt.name, got, Slope(tt.in), tt.want)
		}
	}
	// A gap counts as months: 70 in January and 72 in April is 2/3 per month.
	gap := []TrendPoint{{Period: jan, Score: 70}, {Period: MonthOf(2026, time.April), Score: 72}}
	if s := Slope(gap); s < 0.66 || s > 0.67 {
		t.Errorf("slope over a gap %.3f, want 0.667", s)
	}
	if Trend(gap) != TrendStable {
		t.Errorf("trend over a gap %s", Trend(gap))
	}
}

func TestParsePeriod(t *testing.T) {
	for _, bad := range []string{"", "2026", "2026-13", "2026-1", "26-01", "2026-01-01", "abcd-ef"} {
		if _, err := ParsePeriod(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	p, err := ParsePeriod("2024-02")
	if err != nil || p.First().String() != "2024-02-01" || p.Last().String() != "2024-02-29" || p.String() != "2024-02" {
		t.Errorf("2024-02: %v %v", p, err)
	}
	if p.Prev().String() != "2024-01" || p.Next().String() != "2024-03" || MonthOf(2025, time.January).Prev().String() != "2024-12" {
		t.Error("prev/next")
	}
}
