package rating

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/shopspring/decimal"
)

// Rating is a driver's snapshot for a month.
type Rating struct {
	// ID is the snapshot's id (the snapshot_id of a recalculation).
	ID             uuid.UUID    `json:"id"`
	DriverID       uuid.UUID    `json:"driver_id"`
	TotalScore     json.Number  `json:"total_score"`
	RatingPeriod   Period       `json:"rating_period"`
	RankPercentile int          `json:"rank_percentile"`
	PreviousScore  *json.Number `json:"previous_score"`
	ScoreChange    *json.Number `json:"score_change"`
	Components     Components   `json:"components"`
	CalculatedAt   time.Time    `json:"calculated_at"`
	CreatedAt      time.Time    `json:"created_at"`
}

// ComponentView is one metric of a snapshot, as stored in its components
// object and shown by the API.
type ComponentView struct {
	Score        json.Number  `json:"score"`
	Weight       json.Number  `json:"weight"`
	Contribution json.Number  `json:"contribution"`
	Details      string       `json:"details"`
	RawValue     *json.Number `json:"raw_value"`
	Applicable   bool         `json:"applicable"`
	// Explanation is Details as a code and parameters; snapshots stored
	// before it was kept have none.
	Explanation *Explanation `json:"explanation,omitempty"`
}

// Recalculated is the answer of a recalculation.
type Recalculated struct {
	Message      string      `json:"message"`
	SnapshotID   uuid.UUID   `json:"snapshot_id"`
	TotalScore   json.Number `json:"total_score"`
	CalculatedAt time.Time   `json:"calculated_at"`
}

// CompanyMonth is a company's month to rate.
type CompanyMonth struct {
	CompanyID uuid.UUID
	Period    Period
}

// HistoryItem is one month of a driver's history.
type HistoryItem struct {
	RatingPeriod   Period       `json:"rating_period"`
	TotalScore     json.Number  `json:"total_score"`
	RankPercentile int          `json:"rank_percentile"`
	ScoreChange    *json.Number `json:"score_change"`
}

// HistorySummary describes the whole window (not just the page).
type HistorySummary struct {
	HighestScore  *json.Number `json:"highest_score"`
	HighestPeriod *Period      `json:"highest_period"`
	LowestScore   *json.Number `json:"lowest_score"`
	LowestPeriod  *Period      `json:"lowest_period"`
	AverageScore  *json.Number `json:"average_score"`
	Trend         string       `json:"trend"`
}

// History is a page of a driver's monthly ratings, newest first, with the
// summary of the window.
type History struct {
	paging.Page[HistoryItem]
	Summary HistorySummary
}

// summarize computes the history summary; items are newest first.
func summarize(items []HistoryItem) HistorySummary {
	sum := HistorySummary{Trend: TrendInsufficientData}
	if len(items) == 0 {
		return sum
	}
	hi, lo := 0, 0
	total := decimal.Zero
	points := make([]TrendPoint, 0, len(items))
	for i, it := range items {
		d, _ := decimal.NewFromString(it.TotalScore.String())
		total = total.Add(d)
		if d.GreaterThan(score(items[hi])) {
			hi = i
		}
		if d.LessThan(score(items[lo])) {
			lo = i
		}
		f, _ := d.Float64()
		points = append(points, TrendPoint{Period: it.RatingPeriod, Score: f})
	}
	avg := json.Number(total.Div(decimal.NewFromInt(int64(len(items)))).StringFixed(2))
	hs, ls := items[hi].TotalScore, items[lo].TotalScore
	hp, lp := items[hi].RatingPeriod, items[lo].RatingPeriod
	sum.HighestScore, sum.HighestPeriod = &hs, &hp
	sum.LowestScore, sum.LowestPeriod = &ls, &lp
	sum.AverageScore = &avg
	sum.Trend = Trend(points)
	return sum
}

func score(it HistoryItem) decimal.Decimal {
	d, _ := decimal.NewFromString(it.TotalScore.String())
	return d
}

// RankingRow is one driver in the company ranking.
type RankingRow struct {
	DriverID       uuid.UUID    `json:"driver_id"`
	InternalNumber string       `json:"internal_number"`
	FirstName      string       `json:"first_name"`
	LastName       string       `json:"last_name"`
	RatingPeriod   Period       `json:"rating_period"`
	TotalScore     json.Number  `json:"total_score"`
	RankPercentile int          `json:"rank_percentile"`
	PreviousScore  *json.Number `json:"previous_score"`
	ScoreChange    *json.Number `json:"score_change"`
	CalculatedAt   time.Time    `json:"calculated_at"`
}

// ConfigView is a company's rating configuration as the API shows it.
type ConfigView struct {
	CompanyID   uuid.UUID      `json:"company_id"`
	Metrics     []MetricConfig `json:"metrics"`
	TotalWeight json.Number    `json:"total_weight"`
}

// ConfigUpdated is the answer of a configuration update.
type ConfigUpdated struct {
	Message        string `json:"message"`
	UpdatedMetrics int    `json:"updated_metrics"`
	TotalWeight    int    `json:"total_weight"`
}

func auditValues(m MetricConfig) map[string]any {
	th := map[string]any{}
	for k, v := range m.Thresholds {
		th[k] = num(v)
	}
	return map[string]any{"weight": num(m.Weight), "is_enabled": m.IsEnabled, "thresholds": th}
}
