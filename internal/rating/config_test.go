package rating

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
)

func update(t *testing.T, body string) ConfigUpdate {
	t.Helper()
	var u ConfigUpdate
	if err := json.Unmarshal([]byte(body), &u); err != nil {
		t.Fatalf("bad test body %s: %v", body, err)
	}
	return u
}

func fieldErrors(t *testing.T, err error) map[string][]string {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Kind != apperr.KindValidation {
		t.Fatalf("want a validation error, got %v", err)
	}
	return e.Fields
}

func TestMergeValid(t *testing.T) {
	base := DefaultConfig()
	got, err := base.Merge(update(t, `{"metrics": [
		{"metric_name": "document_expiration", "weight": 25},
		{"metric_name": "activity", "weight": 15, "thresholds": {"min_orders_per_month": 10}},
		{"metric_name": "penalties_amount", "is_enabled": false, "thresholds": {"max_amount": "5000.50"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Metrics[0]; m.Weight.String() != "25" || !m.IsEnabled {
		t.Errorf("document_expiration %+v", m)
	}
	if m := got.Metrics[5]; m.Weight.String() != "15" || m.Threshold().String() != "10" {
		t.Errorf("activity %+v", m)
	}
	if m := got.Metrics[2]; m.IsEnabled || m.Weight.String() != "20" || m.Threshold().String() != "5000.5" {
		t.Errorf("penalties_amount %+v", m)
	}
	if base.Metrics[0].Weight.String() != "30" || base.Metrics[2].Threshold().String() != "10000" {
		t.Error("Merge changed its receiver")
	}
	// Decimal weights that still sum to 100.
	if _, err := base.Merge(update(t, `{"metrics": [
		{"metric_name": "document_expiration", "weight": 29.5}, {"metric_name": "activity", "weight": "10.50"}]}`)); err != nil {
		t.Errorf("decimal weights: %v", err)
	}
	// An entry with only its name changes nothing and is valid.
	if _, err := base.Merge(update(t, `{"metrics": [{"metric_name": "activity"}]}`)); err != nil {
		t.Errorf("name only: %v", err)
	}
}

func TestMergeRules(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		field string
		text  string
	}{
		{"no metrics", `{}`, "metrics", "required"},
		{"empty metrics", `{"metrics": []}`, "metrics", "required"},
		{"missing name", `{"metrics": [{"weight": 10}]}`, "metrics.0.metric_name", "required"},
		{"unknown name", `{"metrics": [{"metric_name": "activity"}, {"metric_name": "speed"}]}`, "metrics.1.metric_name", "must be one of"},
		{"name not a string", `{"metrics": [{"metric_name": 3}]}`, "metrics.0.metric_name", "must be one of"},
		{"listed twice", `{"metrics": [{"metric_name": "activity"}, {"metric_name": "activity"}]}`, "metrics.1.metric_name", "already listed"},
		{"weight above 100", `{"metrics": [{"metric_name": "activity", "weight": 101}]}`, "metrics.0.weight", "between 0 and 100"},
		{"weight negative", `{"metrics": [{"metric_name": "activity", "weight": -1}]}`, "metrics.0.weight", "between 0 and 100"},
		{"weight not a number", `{"metrics": [{"metric_name": "activity", "weight": "ten"}]}`, "metrics.0.weight", "between 0 and 100"},
		{"weight null", `{"metrics": [{"metric_name": "activity", "weight": null}]}`, "metrics.0.weight", "between 0 and 100"},
		{"weight 3 decimals", `{"metrics": [{"metric_name": "activity", "weight": 10.001}]}`, "metrics.0.weight", "2 decimals"},
		{"is_enabled not boolean", `{"metrics": [{"metric_name": "activity", "is_enabled": "yes"}]}`, "metrics.0.is_enabled", "true or false"},
		{"thresholds not an object", `{"metrics": [{"metric_name": "activity", "thresholds": [8]}]}`, "metrics.0.thresholds", "object"},
		{"threshold of another metric", `{"metrics": [{"metric_name": "activity", "thresholds": {"max_count": 3}}]}`, "metrics.0.thresholds.max_count", "min_orders_per_month"},
		{"threshold zero", `{"metrics": [{"metric_name": "penalties_count", "thresholds": {"max_count": 0}}]}`, "metrics.0.thresholds.max_count", "greater than 0"},
		{"threshold negative", `{"metrics": [{"metric_name": "penalties_amount", "thresholds": {"max_amount": -5}}]}`, "metrics.0.thresholds.max_amount", "greater than 0"},
		{"threshold not a number", `{"metrics": [{"metric_name": "document_upload_timeliness", "thresholds": {"avg_days": "soon"}}]}`, "metrics.0.thresholds.avg_days", "greater than 0"},
		{"threshold fraction of a whole number", `{"metrics": [{"metric_name": "document_expiration", "thresholds": {"warning_days": 7.5}}]}`, "metrics.0.thresholds.warning_days", "whole number"},
		{"required_fields beyond the list", `{"metrics": [{"metric_name": "profile_completeness", "thresholds": {"required_fields": 21}}]}`, "metrics.0.thresholds.required_fields", "at most 20"},
		{"sum above 100", `{"metrics": [{"metric_name": "activity", "weight": 20}]}`, "metrics", "sum to 110"},
		{"sum below 100", `{"metrics": [{"metric_name": "document_expiration", "weight": 0}]}`, "metrics", "sum to 70"},
		{"disabled weights count in the sum", `{"metrics": [{"metric_name": "activity", "is_enabled": false, "weight": 0}]}`, "metrics", "sum to 90"},
		{"fewer than 3 enabled", `{"metrics": [
			{"metric_name": "document_expiration", "is_enabled": false}, {"metric_name": "penalties_count", "is_enabled": false},
			{"metric_name": "penalties_amount", "is_enabled": false}, {"metric_name": "profile_completeness", "is_enabled": false}]}`,
			"metrics", "At least 3 metrics must be enabled; 2 would be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DefaultConfig().Merge(update(t, tt.body))
			fields := fieldErrors(t, err)
			msgs := fields[tt.field]
			if len(msgs) == 0 {
				t.Fatalf("no message for %s: %v", tt.field, fields)
			}
			if !strings.Contains(strings.Join(msgs, " "), tt.text) {
				t.Errorf("%s: %q does not say %q", tt.field, msgs, tt.text)
			}
		})
	}
	// Exactly 3 enabled is enough.
	if _, err := DefaultConfig().Merge(update(t, `{"metrics": [
		{"metric_name": "document_expiration", "is_enabled": false}, {"metric_name": "penalties_count", "is_enabled": false},
		{"metric_name": "penalties_amount", "is_enabled": false}]}`)); err != nil {
		t.Errorf("3 enabled: %v", err)
	}
}
