package rating

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
)

// thresholdRule describes the one threshold of a metric: its key, default
// and allowed range.
type thresholdRule struct {
	Key     string
	Default int64
	Max     int64
	// Integer thresholds are whole numbers; the others allow 2 decimals.
	Integer bool
	Unit    string // for messages
}

// thresholdRules are the thresholds of the specification's default
// configuration, one per metric.
var thresholdRules = map[string]thresholdRule{
	DocumentExpiration:       {Key: "warning_days", Default: 30, Max: 365, Integer: true, Unit: "days"},
	PenaltiesCount:           {Key: "max_count", Default: 5, Max: 1000, Integer: true},
	PenaltiesAmount:          {Key: "max_amount", Default: 10000, Max: 99999999},
	ProfileCompleteness:      {Key: "required_fields", Default: int64(len(ProfileFields)), Max: int64(len(ProfileFields)), Integer: true},
	DocumentUploadTimeliness: {Key: "avg_days", Default: 7, Max: 365, Unit: "days"},
	Activity:                 {Key: "min_orders_per_month", Default: 8, Max: 10000, Integer: true},
}

// defaultWeights are the specification's default weights.
var defaultWeights = map[string]int64{
	DocumentExpiration: 30, PenaltiesCount: 20, PenaltiesAmount: 20,
	ProfileCompleteness: 10, DocumentUploadTimeliness: 10, Activity: 10,
}

// MinEnabled is the least number of enabled metrics a configuration needs.
const MinEnabled = 3

// MetricConfig is a company's setting of one metric.
type MetricConfig struct {
	MetricName string
	Weight     decimal.Decimal
	IsEnabled  bool
	Thresholds map[string]decimal.Decimal
	UpdatedAt  time.Time

	id uuid.UUID // rating_configs row; uuid.Nil when the row is missing
}

// Threshold is the metric's threshold, the default when unset or not
// positive (a stored row edited by hand cannot make a formula divide by 0).
func (m MetricConfig) Threshold() decimal.Decimal {
	rule := thresholdRules[m.MetricName]
	if v, ok := m.Thresholds[rule.Key]; ok && v.IsPositive() {
		return v
	}
	return decimal.NewFromInt(rule.Default)
}

// MarshalJSON writes weight and thresholds as JSON numbers.
func (m MetricConfig) MarshalJSON() ([]byte, error) {
	th := map[string]json.Number{}
	for k, v := range m.Thresholds {
		th[k] = num(v)
	}
	return json.Marshal(struct {
		MetricName string                 `json:"metric_name"`
		Weight     json.Number            `json:"weight"`
		IsEnabled  bool                   `json:"is_enabled"`
		Thresholds map[string]json.Number `json:"thresholds"`
		UpdatedAt  *time.Time             `json:"updated_at"`
	}{m.MetricName, num(m.Weight), m.IsEnabled, th, timeOrNil(m.UpdatedAt)})
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Config is a company's rating configuration: the six metrics in display
// order.
type Config struct {
	Metrics []MetricConfig
}

// DefaultConfig is the specification's default configuration.
func DefaultConfig() Config {
	var c Config
	for _, name := range Metrics {
		rule := thresholdRules[name]
		c.Metrics = append(c.Metrics, MetricConfig{
			MetricName: name, Weight: decimal.NewFromInt(defaultWeights[name]), IsEnabled: true,
			Thresholds: map[string]decimal.Decimal{rule.Key: decimal.NewFromInt(rule.Default)},
		})
	}
	return c
}

// TotalWeight is the sum of the weights of all six metrics, enabled or not.
func (c Config) TotalWeight() decimal.Decimal {
	sum := decimal.Zero
	for _, m := range c.Metrics {
		sum = sum.Add(m.Weight)
	}
	return sum
}

func (c Config) clone() Config {
	out := Config{Metrics: make([]MetricConfig, len(c.Metrics))}
	for i, m := range c.Metrics {
		th := make(map[string]decimal.Decimal, len(m.Thresholds))
		for k, v := range m.Thresholds {
			th[k] = v
		}
		m.Thresholds = th
		out.Metrics[i] = m
	}
	return out
}

func (c Config) index(name string) int {
	for i, m := range c.Metrics {
		if m.MetricName == name {
			return i
		}
	}
	return -1
}

// ConfigUpdate is the body of PUT /companies/{id}/rating-config. Each entry
// names a metric and only the fields it changes; the raw values let
// validation say exactly which field is wrong.
type ConfigUpdate struct {
	Metrics []MetricUpdate `json:"metrics"`
}

// MetricUpdate is one entry of a ConfigUpdate.
type MetricUpdate struct {
	MetricName json.RawMessage `json:"metric_name"`
	Weight     json.RawMessage `json:"weight"`
	IsEnabled  json.RawMessage `json:"is_enabled"`
	Thresholds json.RawMessage `json:"thresholds"`
}

// Merge applies an update to the configuration (thresholds merge key by key)
// and validates the result (docs/rating.md): known metric names, weights 0–100
// with at most 2 decimals, thresholds of the metric's own key with a value in
// its range, then on the merged whole: the six weights sum to 100 and at
// least 3 metrics are enabled. Field messages are keyed like
// metrics.2.weight (the entry's index in the request).
func (c Config) Merge(u ConfigUpdate) (Config, error) {
	out := c.clone()
	var v apperr.Validation
	if len(u.Metrics) == 0 {
		v.Add("metrics", "msg.rating.metrics_required")
		return out, v.Err()
	}
	seen := map[string]int{}
	for i, e := range u.Metrics {
		field := func(name string) string { return fmt.Sprintf("metrics.%d.%s", i, name) }
		var name string
		if isAbsent(e.MetricName) {
			v.Add(field("metric_name"), "msg.rating.metric_name_required")
			continue
		}
		if err := json.Unmarshal(e.MetricName, &name); err != nil || out.index(name) < 0 {
			v.Add(field("metric_name"), "msg.rating.metric_name", "allowed", Metrics)
			continue
		}
		if j, dup := seen[name]; dup {
			v.Add(field("metric_name"), "msg.rating.metric_repeated", "metric", name, "index", j)
			continue
		}
		seen[name] = i
		mergeMetric(&v, field, &out.Metrics[out.index(name)], e)
	}
	if err := v.Err(); err != nil {
		return out, err
	}
	out.checkWhole(&v)
	return out, v.Err()
}

// mergeMetric applies one entry of an update to its metric m; field names
// the entry's fields in messages.
func mergeMetric(v *apperr.Validation, field func(string) string, m *MetricConfig, e MetricUpdate) {
	if len(e.Weight) > 0 {
		w, ok := parseNumber(e.Weight)
		switch {
		case !ok || w.IsNegative() || w.GreaterThan(hundred):
			v.Add(field("weight"), "msg.rating.weight_range")
		case !w.Equal(w.Round(2)):
			v.Add(field("weight"), "msg.rating.weight_places")
		default:
			m.Weight = w
		}
	}
	if len(e.IsEnabled) > 0 {
		var b bool
		if err := json.Unmarshal(e.IsEnabled, &b); err != nil || isAbsent(e.IsEnabled) {
			v.Add(field("is_enabled"), "msg.rating.is_enabled")
		} else {
			m.IsEnabled = b
		}
	}
	if len(e.Thresholds) > 0 {
		mergeThresholds(v, field("thresholds"), m, e.Thresholds)
	}
}

// checkWhole applies the rules of the merged configuration as a whole: the
// weights sum to 100 and at least MinEnabled metrics are enabled.
func (c Config) checkWhole(v *apperr.Validation) {
	if total := c.TotalWeight(); !total.Equal(hundred) {
		v.Add("metrics", "msg.rating.weights_sum", "total", total)
	}
	enabled := 0
	for _, m := range c.Metrics {
		if m.IsEnabled {
			enabled++
		}
	}
	if enabled < MinEnabled {
		v.Add("metrics", "msg.rating.min_enabled", "min", MinEnabled, "enabled", enabled)
	}
}

func mergeThresholds(v *apperr.Validation, field string, m *MetricConfig, raw json.RawMessage) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		v.Add(field, "msg.rating.thresholds_object")
		return
	}
	rule := thresholdRules[m.MetricName]
	for key, val := range in {
		f := field + "." + key
		if key != rule.Key {
			v.Add(f, "msg.rating.threshold_unknown", "metric", m.MetricName, "key", key, "threshold", rule.Key)
			continue
		}
		n, ok := parseNumber(val)
		switch {
		case (!ok || !n.IsPositive() || n.GreaterThan(decimal.NewFromInt(rule.Max))) && rule.Integer:
			v.Add(f, "msg.rating.threshold_range_whole", "key", key, "max", rule.Max)
		case !ok || !n.IsPositive() || n.GreaterThan(decimal.NewFromInt(rule.Max)):
			v.Add(f, "msg.rating.threshold_range", "key", key, "max", rule.Max)
		case rule.Integer && !n.IsInteger():
			v.Add(f, "msg.rating.threshold_whole", "key", key)
		case !n.Equal(n.Round(2)):
			v.Add(f, "msg.rating.threshold_places", "key", key)
		default:
			m.Thresholds[key] = n
		}
	}
}

// isAbsent reports a missing or null JSON value.
func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// parseNumber reads a JSON number or a numeric string.
func parseNumber(raw json.RawMessage) (decimal.Decimal, bool) {
	raw = bytes.TrimSpace(raw)
	if isAbsent(raw) {
		return decimal.Zero, false
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return decimal.Zero, false
		}
		s = strings.TrimSpace(s)
	} else if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, false
	}
	return d, true
}

// configSQL reads a company's rating configuration rows ($1 the company).
const configSQL = `SELECT id, metric_name, weight::text, is_enabled, thresholds, updated_at
		FROM rating_configs WHERE company_id = $1`

// loadConfig reads a company's configuration; a missing row (a company made
// before the defaults trigger) gets the default. forUpdate locks the rows so
// concurrent updates merge one after the other.
func loadConfig(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, forUpdate bool) (Config, error) {
	q := configSQL
	if forUpdate {
		q += ` FOR UPDATE`
	}
	rows, err := db.Query(ctx, q, companyID)
	if err != nil {
		return Config{}, fmt.Errorf("load rating config of company %s: %w", companyID, err)
	}
	return scanConfig(rows, companyID)
}

// scanConfig reads the rows of configSQL over the default configuration,
// and closes them.
func scanConfig(rows pgx.Rows, companyID uuid.UUID) (Config, error) {
	defer rows.Close()
	cfg := DefaultConfig()
	for rows.Next() {
		var m MetricConfig
		var weight string
		var th map[string]json.RawMessage
		if err := rows.Scan(&m.id, &m.MetricName, &weight, &m.IsEnabled, &th, &m.UpdatedAt); err != nil {
			return Config{}, fmt.Errorf("scan rating config: %w", err)
		}
		var err error
		m.Weight, err = decimal.NewFromString(weight)
		if err != nil {
			return Config{}, fmt.Errorf("rating config weight %q: %w", weight, err)
		}
		m.Thresholds = map[string]decimal.Decimal{}
		for k, val := range th {
			if d, ok := parseNumber(val); ok {
				m.Thresholds[k] = d
			}
		}
		if i := cfg.index(m.MetricName); i >= 0 {
			cfg.Metrics[i] = m
		}
	}
	if err := rows.Err(); err != nil {
		return Config{}, fmt.Errorf("load rating config of company %s: %w", companyID, err)
	}
	return cfg, nil
}

// ThresholdKey is the name of the metric's one threshold ("" for an
// unknown metric).
func ThresholdKey(metric string) string { return thresholdRules[metric].Key }
