package finance

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
)

func TestMoveAllowed(t *testing.T) {
	allowed := map[[2]string]bool{
		{"pending", "approved"}: true, {"pending", "cancelled"}: true,
		{"approved", "paid"}: true, {"approved", "cancelled"}: true,
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			if got := MoveAllowed(from, to); got != allowed[[2]string{from, to}] {
				t.Errorf("MoveAllowed(%s, %s) = %v", from, to, got)
			}
		}
	}
}

func TestDeleteAllowed(t *testing.T) {
	today := civil.NewDate(2026, 3, 31)
	tests := []struct {
		status string
		date   civil.Date
		ok     bool
	}{
		{"pending", today.AddDays(-90), true}, // exactly 90 days: still allowed
		{"pending", today.AddDays(-91), false},
		{"approved", today, true},
		{"cancelled", today, true},
		{"disputed", today, true},
		{"pending", today.AddDays(30), true}, // future-dated
		{"paid", today, false},
	}
	for _, tt := range tests {
		err := DeleteAllowed(Transaction{Status: tt.status, TransactionDate: tt.date}, today)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, apperr.ErrConflict)) {
			t.Errorf("DeleteAllowed(%s, %s) = %v, want ok=%v", tt.status, tt.date, err, tt.ok)
		}
	}
}

func TestCheckEdit(t *testing.T) {
	base := Transaction{Status: StatusPending, TransactionType: "bonus", Amount: amountOf("10"), Currency: "CZK",
		TransactionDate: civil.NewDate(2026, 1, 5), Metadata: json.RawMessage(`{}`)}
	withStatus := func(s string) Transaction { t := base; t.Status = s; return t }
	desc := "x"
	info := func(t Transaction) Transaction { t.Description = &desc; return t }
	amount := func(t Transaction) Transaction { t.Amount = amountOf("11"); return t }
	tests := []struct {
		name         string
		cur, next    Transaction
		to, penalty  string
		wantConflict bool
	}{
		{"pending edit money", base, amount(base), "", "", false},
		{"approved edit info", withStatus("approved"), info(withStatus("approved")), "", "", false},
		{"approved edit money", withStatus("approved"), amount(withStatus("approved")), "", "", true},
		{"paid edit info", withStatus("paid"), info(withStatus("paid")), "", "", true},
		{"cancelled edit info", withStatus("cancelled"), info(withStatus("cancelled")), "", "", true},
		{"disputed approve", withStatus("disputed"), withStatus("disputed"), "approved", "disputed", true},
		{"to disputed", base, base, "disputed", "", true},
		{"same status", base, base, "pending", "", true},
		{"penalty pending approve", base, base, "approved", "pending", true},
		{"penalty accepted approve", base, base, "approved", "accepted", false},
		{"penalty resolved approve", base, base, "approved", "resolved", false},
		{"penalty resolved cancel", base, base, "cancelled", "resolved", true},
		{"penalty money edit", base, amount(base), "", "accepted", true},
		{"penalty description", base, info(base), "", "pending", false},
	}
	for _, tt := range tests {
		err := checkEdit(tt.cur, tt.next, tt.to, tt.penalty)
		if (err != nil) != tt.wantConflict || (err != nil && !errors.Is(err, apperr.ErrConflict)) {
			t.Errorf("%s: checkEdit = %v, want conflict=%v", tt.name, err, tt.wantConflict)
		}
	}
}

func TestMainCurrency(t *testing.T) {
	tests := []struct {
		sums []Summary
		want string
	}{
		{nil, "CZK"},
		{[]Summary{{Currency: "EUR", rows: 1}}, "EUR"},
		{[]Summary{{Currency: "EUR", rows: 9}, {Currency: "CZK", rows: 1}}, "CZK"},
		{[]Summary{{Currency: "PLN", rows: 2}, {Currency: "EUR", rows: 2}}, "EUR"},
		{[]Summary{{Currency: "PLN", rows: 3}, {Currency: "EUR", rows: 2}}, "PLN"},
	}
	for _, tt := range tests {
		if got := mainCurrency(tt.sums, "CZK"); got != tt.want {
			t.Errorf("mainCurrency(%v) = %s, want %s", tt.sums, got, tt.want)
		}
	}
}

func TestApplySignFollowsType(t *testing.T) {
	typ := func(s string) *string { return &s }
	tests := []struct {
		typ, amount string
		ok          bool
	}{
		{"bonus", "1", true}, {"bonus", "-1", false}, {"bonus", "0", false},
		{"deduction", "-1", true}, {"deduction", "1", false},
		{"penalty", "-0.01", true}, {"penalty", "0", false},
	}
	for _, tt := range tests {
		var v apperr.Validation
		TransactionInput{TransactionType: typ(tt.typ), Amount: amountInput(tt.amount)}.apply(Transaction{}, &v)
		if (v.Err() == nil) != tt.ok {
			t.Errorf("%s %s: %v, want ok=%v", tt.typ, tt.amount, v.Err(), tt.ok)
		}
	}
}

// amountOf parses a plain decimal string; a typo in a test's constant panics.
func amountOf(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// amountInput is the amount a JSON body would carry as a string ("" means
// absent).
func amountInput(s string) money.Input {
	var in money.Input
	if s == "" {
		return in
	}
	b, _ := json.Marshal(s)
	if err := json.Unmarshal(b, &in); err != nil {
		panic(err)
	}
	return in
}
