package finance

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
)

// Limits of penalty input.
const (
	maxEvidence    = 20
	maxURL         = 2048
	maxPenaltyText = 5000
)

// PenaltyInput is the body of a penalty create.
type PenaltyInput struct {
	PenaltyType  *string         `json:"penalty_type"`
	Severity     *string         `json:"severity"`
	Amount       money.Input     `json:"amount"`
	Currency     *string         `json:"currency"`
	IncidentDate *string         `json:"incident_date"`
	Location     *string         `json:"location"`
	Description  *string         `json:"description"`
	Evidence     json.RawMessage `json:"evidence"`
	Metadata     json.RawMessage `json:"metadata"`
}

// apply validates a create's body over pen (the new penalty with its
// defaults); problems are collected in v.
func (in PenaltyInput) apply(pen Penalty, v *apperr.Validation) Penalty {
	pen.PenaltyType = requiredText(v, "penalty_type", in.PenaltyType, 50)
	if pen.PenaltyType != "" && !contains(PenaltyTypes, pen.PenaltyType) {
		v.Add("penalty_type", "msg.finance.one_of", "field", fieldName("penalty_type"), "allowed", PenaltyTypes)
	}
	if in.Severity != nil {
		pen.Severity = strings.TrimSpace(*in.Severity)
		if !contains(PenaltySeverities, pen.Severity) {
			v.Add("severity", "msg.finance.one_of", "field", fieldName("severity"), "allowed", PenaltySeverities)
		}
	}
	if !in.Amount.Given() {
		v.Add("amount", "msg.common.required", "field", fieldName("amount"))
	} else if a, ok := penaltyAmount(v, in.Amount); ok {
		pen.Amount = a
	}
	if in.Currency != nil {
		pen.Currency = inputCurrency(v, *in.Currency)
	}
	if in.IncidentDate == nil || strings.TrimSpace(*in.IncidentDate) == "" {
		v.Add("incident_date", "msg.common.required", "field", fieldName("incident_date"))
	} else if date, err := civil.Parse(strings.TrimSpace(*in.IncidentDate)); err != nil {
		v.Add("incident_date", "msg.common.date_iso", "field", fieldName("incident_date"))
	} else {
		pen.IncidentDate = date
	}
	if in.Location != nil {
		pen.Location = optionalText(v, "location", *in.Location, 500)
	}
	pen.Description = requiredText(v, "description", in.Description, maxPenaltyText)
	pen.Evidence = parseEvidence(in.Evidence, v)
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		pen.Metadata = inputMetadata(v, in.Metadata, pen.Metadata)
	}
	return pen
}

// penaltyAmount reads a penalty's amount: 0 or more.
func penaltyAmount(v *apperr.Validation, in money.Input) (money.Amount, bool) {
	a, err := in.Parse()
	var ie *money.InputError
	switch {
	case errors.As(err, &ie):
		ie.AddTo(v, "amount", fieldName("amount"))
	case err != nil:
	case a.Sign() < 0:
		v.Add("amount", "msg.finance.not_negative", "field", fieldName("amount"))
	default:
		return a, true
	}
	return money.Amount{}, false
}

// DisputeInput is the body of a dispute.
type DisputeInput struct {
	DisputeReason *string         `json:"dispute_reason"`
	Evidence      json.RawMessage `json:"evidence"`
}

// ResolveInput is the body of a resolution.
type ResolveInput struct {
	ResolutionAction *string     `json:"resolution_action"`
	NewAmount        money.Input `json:"new_amount"`
	Resolution       *string     `json:"resolution"`
}

// resolution is a validated resolution of cur.
type resolution struct {
	action    string
	text      *string
	newAmount money.Amount
}

// read validates a resolution of the penalty cur; new_amount is read only
// for reduce, keep and cancel ignore it.
func (in ResolveInput) read(cur Penalty, v *apperr.Validation) resolution {
	r := resolution{newAmount: cur.Amount}
	if in.ResolutionAction == nil || strings.TrimSpace(*in.ResolutionAction) == "" {
		v.Add("resolution_action", "msg.common.required", "field", fieldName("resolution_action"))
	} else if r.action = strings.TrimSpace(*in.ResolutionAction); !contains(ResolutionActions, r.action) {
		v.Add("resolution_action", "msg.finance.one_of", "field", fieldName("resolution_action"), "allowed", ResolutionActions)
	}
	if in.Resolution != nil {
		r.text = optionalText(v, "resolution", *in.Resolution, maxPenaltyText)
	}
	if r.action != "reduce" {
		return r
	}
	if !in.NewAmount.Given() {
		v.Add("new_amount", "msg.finance.new_amount_required")
		return r
	}
	a, err := in.NewAmount.Parse()
	var ie *money.InputError
	switch {
	case errors.As(err, &ie):
		ie.AddTo(v, "new_amount", fieldName("new_amount"))
	case a.Sign() < 0:
		v.Add("new_amount", "msg.finance.not_negative", "field", fieldName("new_amount"))
	case a.Cmp(cur.Amount) >= 0:
		v.Add("new_amount", "msg.finance.new_amount_below", "amount", i18n.Amount{Value: cur.Amount.Decimal(), Currency: cur.Currency})
	default:
		r.newAmount = a
	}
	return r
}

// parseEvidence validates an evidence list: at most 20 items, each {type,
// url} with a known type and an absolute http(s) URL.
func parseEvidence(raw json.RawMessage, v *apperr.Validation) []Evidence {
	out := []Evidence{}
	if len(raw) == 0 || string(raw) == "null" {
		return out
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		v.Add("evidence", "msg.penalties.evidence_array")
		return out
	}
	if len(items) > maxEvidence {
		v.Add("evidence", "msg.penalties.evidence_max", "max", maxEvidence)
		return out
	}
	for i, item := range items {
		if ev, ok := parseEvidenceItem(item, fmt.Sprintf("evidence.%d", i), v); ok {
			out = append(out, ev)
		}
	}
	return out
}

// parseEvidenceItem validates one evidence item; ok is false for an item
// that is not an object at all.
func parseEvidenceItem(item json.RawMessage, field string, v *apperr.Validation) (Evidence, bool) {
	var e struct {
		Type *string `json:"type"`
		URL  *string `json:"url"`
	}
	if err := json.Unmarshal(item, &e); err != nil || string(item) == "null" {
		v.Add(field, "msg.penalties.evidence_item")
		return Evidence{}, false
	}
	var ev Evidence
	switch {
	case e.Type == nil || strings.TrimSpace(*e.Type) == "":
		v.Add(field+".type", "msg.penalties.evidence_type_required")
	case !contains(EvidenceTypes, strings.TrimSpace(*e.Type)):
		v.Add(field+".type", "msg.penalties.evidence_type", "allowed", EvidenceTypes)
	default:
		ev.Type = strings.TrimSpace(*e.Type)
	}
	switch {
	case e.URL == nil || strings.TrimSpace(*e.URL) == "":
		v.Add(field+".url", "msg.penalties.evidence_url_required")
	case !isWebURL(strings.TrimSpace(*e.URL)):
		v.Add(field+".url", "msg.penalties.evidence_url")
	default:
		ev.URL = strings.TrimSpace(*e.URL)
	}
	return ev, true
}

// isWebURL reports whether s is an absolute http(s) URL with a host.
func isWebURL(s string) bool {
	if len(s) > maxURL || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

func requiredText(v *apperr.Validation, field string, s *string, max int) string {
	if s == nil || strings.TrimSpace(*s) == "" {
		v.Add(field, "msg.common.required", "field", fieldName(field))
		return ""
	}
	t := optionalText(v, field, *s, max)
	if t == nil {
		return ""
	}
	return *t
}
