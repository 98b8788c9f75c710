package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/units"
)

// Rule is a company's rule for one document type (docs/alerts.md): whether
// drivers need it to be ready and which drivers (required_for: all, non_eu
// or tag:<tag>), how many days before valid_until the first alert goes out,
// and whether a driver's own upload waits for review.
type Rule struct {
	DocumentType   string `json:"document_type"`
	Required       bool   `json:"required"`
	RequiredFor    string `json:"required_for"`
	LeadDays       int    `json:"lead_days"`
	RequiresReview bool   `json:"requires_review"`
}

// MaxLeadDays is the longest lead time a rule may have (two years).
const MaxLeadDays = 730

// RulesUpdate is the body of PUT /companies/{id}/document-rules: each entry
// names a document type and only the fields it changes. The raw values let
// validation say exactly which field is wrong (rules.0.lead_days).
type RulesUpdate struct {
	Rules []RuleChange `json:"rules"`
}

// RuleChange is one entry of a RulesUpdate.
type RuleChange struct {
	DocumentType   json.RawMessage `json:"document_type"`
	Required       json.RawMessage `json:"required"`
	RequiredFor    json.RawMessage `json:"required_for"`
	LeadDays       json.RawMessage `json:"lead_days"`
	RequiresReview json.RawMessage `json:"requires_review"`
}

// requiredForTag is the form of a tag group (required_for tag:<tag>).
var requiredForTag = regexp.MustCompile(`^tag:[a-z0-9_-]{1,40}$`)

// LoadRules returns the company's rule of every document type, in the order
// of Types (the company's own rows, else the defaults of
// konvoj_document_rules). It checks nothing: the services and jobs call it
// for a company they already hold.
func LoadRules(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) ([]Rule, error) {
	return LoadHolderRules(ctx, db, companyID, HolderDriver)
}

// LoadHolderRules is LoadRules for the documents of a holder type:
// drivers', vehicles' or trailers' (docs/fleet.md).
func LoadHolderRules(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, holderType string) ([]Rule, error) {
	rows, err := db.Query(ctx, `
		SELECT document_type, required, required_for, lead_days, requires_review
		FROM konvoj_document_rules($1, $2) ORDER BY ord`, companyID, holderType)
	if err != nil {
		return nil, fmt.Errorf("document rules of company %s: %w", companyID, err)
	}
	rules, err := postgres.AppendRows(nil, rows, func(row pgx.Row, r *Rule) error {
		return row.Scan(&r.DocumentType, &r.Required, &r.RequiredFor, &r.LeadDays, &r.RequiresReview)
	})
	if err != nil {
		return nil, fmt.Errorf("document rules of company %s: %w", companyID, err)
	}
	return rules, nil
}

// Rules returns company companyID's rules, one per document type: the
// role (403 Forbidden), the company exists (404), it is the caller's (403
// AccessDenied).
func (s *Service) Rules(ctx context.Context, p auth.Principal, companyID uuid.UUID) ([]Rule, error) {
	return s.HolderRules(ctx, p, companyID, HolderDriver)
}

// HolderRules is Rules for the documents of a holder type (driver,
// vehicle, trailer; another is 422, after the company's checks).
func (s *Service) HolderRules(ctx context.Context, p auth.Principal, companyID uuid.UUID, holderType string) ([]Rule, error) {
	if err := companyOf(ctx, s.db, p, auth.DocumentRules, companyID); err != nil {
		return nil, err
	}
	if err := checkHolderType(holderType); err != nil {
		return nil, err
	}
	return LoadHolderRules(ctx, s.db, companyID, holderType)
}

// checkHolderType refuses a holder type other than driver, vehicle and
// trailer (422 holder_type).
func checkHolderType(holderType string) error {
	if !slices.Contains(HolderTypes, holderType) {
		return apperr.Invalid("holder_type", "msg.list.holder_type")
	}
	return nil
}

// UpdateRules applies the changes that read fills once the company is
// checked (all or none: any invalid field is 422 with field keys like
// rules.0.lead_days), writes an audit row per changed type, and returns
// every rule.
func (s *Service) UpdateRules(ctx context.Context, p auth.Principal, companyID uuid.UUID, read func(*RulesUpdate) error) ([]Rule, error) {
	return s.UpdateHolderRules(ctx, p, companyID, HolderDriver, read)
}

// UpdateHolderRules is UpdateRules for the rules of a holder type (one
// rule per type per holder type; a vehicle's or a trailer's required_for
// is all or tag:<tag>).
func (s *Service) UpdateHolderRules(ctx context.Context, p auth.Principal, companyID uuid.UUID, holderType string, read func(*RulesUpdate) error) ([]Rule, error) {
	if err := companyOf(ctx, s.db, p, auth.DocumentRules, companyID); err != nil {
		return nil, err
	}
	if err := checkHolderType(holderType); err != nil {
		return nil, err
	}
	var u RulesUpdate
	if err := read(&u); err != nil {
		return nil, err
	}
	var out []Rule
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		// One change at a time per company: the merge reads, then writes.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM companies WHERE id = $1 FOR UPDATE`, companyID); err != nil {
			return fmt.Errorf("lock company %s: %w", companyID, err)
		}
		before, err := LoadHolderRules(ctx, tx, companyID, holderType)
		if err != nil {
			return err
		}
		merged, err := mergeRules(before, u, holderType)
		if err != nil {
			return err
		}
		for i, r := range merged {
			oldV, newV := audit.Diff(ruleValues(before[i]), ruleValues(r))
			if len(newV) == 0 {
				continue
			}
			if err := storeRule(ctx, tx, companyID, holderType, r); err != nil {
				return err
			}
			oldV["document_type"], newV["document_type"] = r.DocumentType, r.DocumentType
			if holderType != HolderDriver {
				oldV["holder_type"], newV["holder_type"] = holderType, holderType
			}
			if err := audit.Record(ctx, tx, p, audit.Entry{
				EntityType: "document_rule", EntityID: companyID, Action: "updated", OldValues: oldV, NewValues: newV,
			}); err != nil {
				return err
			}
		}
		out = merged
		// A rule's change may change transport units' readiness.
		return units.Flush(ctx, tx, companyID)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReviewOffered reports whether a company's document types should be
// offered review (docs/drivers-and-documents.md, "Review of drivers'
// uploads"): no type's rule has it on yet, so drivers' uploads count
// unseen.
func ReviewOffered(rules []Rule) bool {
	return !slices.ContainsFunc(rules, func(r Rule) bool { return r.RequiresReview })
}

// RequireReview turns requires_review on for every document type of the
// company (the offer of the rules and home pages): one update of the
// rules, with an audit row per type it changes, as UpdateRules writes.
func (s *Service) RequireReview(ctx context.Context, p auth.Principal, companyID uuid.UUID) ([]Rule, error) {
	return s.UpdateRules(ctx, p, companyID, func(u *RulesUpdate) error {
		rules, err := LoadRules(ctx, s.db, companyID)
		if err != nil {
			return err
		}
		on := json.RawMessage(`true`)
		for _, r := range rules {
			typ, err := json.Marshal(r.DocumentType)
			if err != nil {
				return fmt.Errorf("encode document type %s: %w", r.DocumentType, err)
			}
			u.Rules = append(u.Rules, RuleChange{DocumentType: typ, RequiresReview: on})
		}
		return nil
	})
}

func storeRule(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, holderType string, r Rule) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO document_rules (company_id, document_type, required, required_for, lead_days, requires_review, holder_type)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (company_id, holder_type, document_type) DO UPDATE SET required = EXCLUDED.required,
			required_for = EXCLUDED.required_for, lead_days = EXCLUDED.lead_days,
			requires_review = EXCLUDED.requires_review, updated_at = now()`,
		companyID, r.DocumentType, r.Required, r.RequiredFor, r.LeadDays, r.RequiresReview, holderType)
	if err != nil {
		return fmt.Errorf("store document rule %s of company %s: %w", r.DocumentType, companyID, err)
	}
	return nil
}

func ruleValues(r Rule) map[string]any {
	return map[string]any{"required": r.Required, "required_for": r.RequiredFor, "lead_days": r.LeadDays, "requires_review": r.RequiresReview}
}

// MergeRules applies an update to the rules (one per type, in the order of
// Types) and validates it: each entry names a known type once; required and
// requires_review are booleans; required_for is all, non_eu or tag:<tag>
// (lower-case letters, digits, _ and -, up to 40); lead_days a whole number
// 0–MaxLeadDays. Field messages are keyed by the entry's index.
func MergeRules(before []Rule, u RulesUpdate) ([]Rule, error) {
	return mergeRules(before, u, HolderDriver)
}

// mergeRules is MergeRules for the rules of a holder type: non_eu is a
// drivers' group only.
func mergeRules(before []Rule, u RulesUpdate, holderType string) ([]Rule, error) {
	out := slices.Clone(before)
	known := Types
	if holderType != HolderDriver {
		known = BuiltInTypes(holderType)
	}
	var v apperr.Validation
	if len(u.Rules) == 0 {
		v.Add("rules", "msg.document_rules.rules_required")
		return out, v.Err()
	}
	seen := map[string]int{}
	for i, e := range u.Rules {
		field := func(name string) string { return fmt.Sprintf("rules.%d.%s", i, name) }
		var typ string
		if absent(e.DocumentType) {
			v.Add(field("document_type"), "msg.document_rules.type_required")
			continue
		}
		idx := -1
		if err := json.Unmarshal(e.DocumentType, &typ); err == nil {
			idx = slices.IndexFunc(out, func(r Rule) bool { return r.DocumentType == typ })
		}
		if idx < 0 {
			v.Add(field("document_type"), "msg.document_rules.type_unknown", "allowed", known)
			continue
		}
		if j, dup := seen[typ]; dup {
			v.Add(field("document_type"), "msg.document_rules.type_repeated", "type", typ, "index", j)
			continue
		}
		seen[typ] = i
		r := &out[idx]
		if len(e.Required) > 0 {
			if err := json.Unmarshal(e.Required, &r.Required); err != nil || absent(e.Required) {
				v.Add(field("required"), "msg.document_rules.boolean")
			}
		}
		if len(e.RequiresReview) > 0 {
			if err := json.Unmarshal(e.RequiresReview, &r.RequiresReview); err != nil || absent(e.RequiresReview) {
				v.Add(field("requires_review"), "msg.document_rules.boolean")
			}
		}
		if len(e.RequiredFor) > 0 {
			var rf string
			if err := json.Unmarshal(e.RequiredFor, &rf); err != nil || (rf != "all" && (rf != "non_eu" || holderType != HolderDriver) && !requiredForTag.MatchString(rf)) {
				v.Add(field("required_for"), "msg.document_rules.required_for")
			} else {
				r.RequiredFor = rf
			}
		}
		if len(e.LeadDays) > 0 {
			var n int
			if err := json.Unmarshal(e.LeadDays, &n); err != nil || absent(e.LeadDays) || n < 0 || n > MaxLeadDays {
				v.Add(field("lead_days"), "msg.document_rules.lead_days", "max", MaxLeadDays)
			} else {
				r.LeadDays = n
			}
		}
	}
	return out, v.Err()
}

// absent reports a missing or null JSON value.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
