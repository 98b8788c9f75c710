package finance

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
)

// TransactionInput is the body of a create or an update. Pointers are nil
// when the field is absent or null (null leaves a field unchanged on update;
// an empty string clears a text field). Dates and ids are strings so that a
// bad value is a field message (422), not a malformed body.
type TransactionInput struct {
	TransactionType *string         `json:"transaction_type"`
	Category        *string         `json:"category"`
	Amount          money.Input     `json:"amount"`
	Currency        *string         `json:"currency"`
	TransactionDate *string         `json:"transaction_date"`
	Description     *string         `json:"description"`
	Reference       *string         `json:"reference"`
	OrderID         *string         `json:"order_id"`
	Metadata        json.RawMessage `json:"metadata"`
	// Update only.
	Status      *string `json:"status"`
	PaymentDate *string `json:"payment_date"`
}

// Text limits.
const (
	maxCategory    = 50
	maxReference   = 100
	maxDescription = 5000
)

// forCreate validates the body of a create over base (the new record with
// its defaults): the required fields, no status but pending and no payment
// date, then the fields themselves.
func (in TransactionInput) forCreate(base Transaction, v *apperr.Validation) Transaction {
	if in.TransactionType == nil || strings.TrimSpace(*in.TransactionType) == "" {
		v.Add("transaction_type", "msg.common.required", "field", fieldName("transaction_type"))
		in.TransactionType = nil
	}
	if !in.Amount.Given() {
		v.Add("amount", "msg.common.required", "field", fieldName("amount"))
	}
	if in.TransactionDate == nil || strings.TrimSpace(*in.TransactionDate) == "" {
		v.Add("transaction_date", "msg.common.required", "field", fieldName("transaction_date"))
		in.TransactionDate = nil
	}
	if in.Status != nil && strings.TrimSpace(*in.Status) != StatusPending {
		v.Add("status", "msg.finance.new_pending")
	}
	if in.PaymentDate != nil {
		v.Add("payment_date", "msg.finance.payment_date_on_create")
	}
	in.Status = nil
	return in.apply(base, v)
}

// update is a validated update: the record as it would be, the requested
// status ("" when none) and payment date.
type update struct {
	next        Transaction
	to          string
	paymentDate *civil.Date
}

// forUpdate validates the body of an update over the current record.
func (in TransactionInput) forUpdate(cur Transaction, v *apperr.Validation) update {
	u := update{next: in.apply(cur, v)}
	if in.Status != nil {
		u.to = strings.TrimSpace(*in.Status)
		if !contains(Statuses, u.to) {
			v.Add("status", "msg.finance.one_of", "field", fieldName("status"), "allowed", Statuses)
		}
	}
	if in.PaymentDate != nil {
		pd, err := civil.Parse(strings.TrimSpace(*in.PaymentDate))
		switch {
		case err != nil:
			v.Add("payment_date", "msg.common.date_iso", "field", fieldName("payment_date"))
		case u.to != StatusPaid:
			v.Add("payment_date", "msg.finance.payment_date_paid_only")
		default:
			u.paymentDate = &pd
		}
	}
	return u
}

// apply validates the input over base (the zero Transaction on create) and
// returns the resulting record; problems are collected in v. It does not
// look at the status workflow (that is a state rule, checked later).
func (in TransactionInput) apply(base Transaction, v *apperr.Validation) Transaction {
	t := base
	if in.TransactionType != nil {
		t.TransactionType = strings.TrimSpace(*in.TransactionType)
		// An adjustment keeps its type; no other transaction takes it.
		if !contains(TransactionTypes, t.TransactionType) && t.TransactionType != base.TransactionType {
			v.Add("transaction_type", "msg.finance.one_of", "field", fieldName("transaction_type"), "allowed", TransactionTypes)
		}
	}
	if in.Category != nil {
		t.Category = optionalText(v, "category", *in.Category, maxCategory)
	}
	if in.Amount.Given() {
		a, err := in.Amount.Parse()
		var ie *money.InputError
		if errors.As(err, &ie) {
			ie.AddTo(v, "amount", fieldName("amount"))
		} else {
			t.Amount = a
		}
	}
	if in.Currency != nil {
		t.Currency = inputCurrency(v, *in.Currency)
	}
	if in.TransactionDate != nil {
		d, err := civil.Parse(strings.TrimSpace(*in.TransactionDate))
		if err != nil {
			v.Add("transaction_date", "msg.common.date_iso", "field", fieldName("transaction_date"))
		}
		t.TransactionDate = d
	}
	in.applyTexts(&t, v)
	if in.OrderID != nil {
		t.OrderID = inputOrderID(v, *in.OrderID)
	}
	if len(in.Metadata) > 0 && string(bytes.TrimSpace(in.Metadata)) != "null" {
		t.Metadata = inputMetadata(v, in.Metadata, t.Metadata)
	}
	// The sign follows the type, so that earnings, deductions and penalties
	// add up the same way in periods, summaries and aggregates.
	if !v.Has("amount") && !v.Has("transaction_type") && t.TransactionType != "" && (in.Amount.Given() || in.TransactionType != nil) {
		checkSign(v, t)
	}
	return t
}

// applyTexts sets the free-text fields given in the input.
func (in TransactionInput) applyTexts(t *Transaction, v *apperr.Validation) {
	if in.Description != nil {
		t.Description = optionalText(v, "description", *in.Description, maxDescription)
	}
	if in.Reference != nil {
		t.Reference = optionalText(v, "reference", *in.Reference, maxReference)
	}
}

// checkSign requires negative amounts for deductions and penalties and
// positive ones for earnings; an adjustment takes either sign.
func checkSign(v *apperr.Validation, t Transaction) {
	switch {
	case t.TransactionType == TypeAdjustment:
	case isDeduction(t.TransactionType) && t.Amount.Sign() >= 0:
		v.Add("amount", "msg.finance.amount_negative", "type", t.TransactionType)
	case !isDeduction(t.TransactionType) && t.Amount.Sign() <= 0:
		v.Add("amount", "msg.finance.amount_positive", "type", t.TransactionType)
	}
}

// inputOrderID reads an order id; empty clears it.
func inputOrderID(v *apperr.Validation, raw string) *uuid.UUID {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		v.Add("order_id", "msg.common.uuid", "field", fieldName("order_id"))
		return nil
	}
	return &id
}

// inputCurrency reads a currency code of a body (docs/finance.md,
// "Currencies").
func inputCurrency(v *apperr.Validation, raw string) string {
	c, ok := money.NormalizeCurrency(raw)
	switch {
	case ok:
	case c == "":
		v.Add("currency", "msg.common.required", "field", fieldName("currency"))
	default:
		v.Add("currency", "msg.common.currency", "value", strings.TrimSpace(raw))
	}
	return c
}

// inputMetadata reads a metadata object; anything else keeps cur and adds a
// message.
func inputMetadata(v *apperr.Validation, raw, cur json.RawMessage) json.RawMessage {
	if !isJSONObject(raw) {
		v.Add("metadata", "msg.finance.metadata")
		return cur
	}
	return compactJSON(raw)
}

func optionalText(v *apperr.Validation, field, s string, max int) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if len([]rune(s)) > max {
		v.Add(field, "msg.common.too_long", "field", fieldName(field), "max", max)
	}
	return &s
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
