package views

import (
	"fmt"
	"strconv"
)

// RankingData is the company ranking of a month.
type RankingData struct {
	// Month is YYYY-MM; MonthLabel names it; Max is the current month (the
	// month picker's limit).
	Month, MonthLabel, Max string
	Search                 string
	SortBy, SortOrder      string
	Offices, Statuses      []Option
	Bands                  []Option
	Columns                []SortColumn
	Rows                   []RankingRow
	Pager                  Pager
	// Total is every rated driver of the month; Shown those the filters
	// keep.
	Total, Shown          int
	Histogram             Histogram
	ClearURL              string
	ExportCSV, ExportXLSX string
	CanConfigure          bool
}

// RankingRow is one driver of the ranking.
type RankingRow struct {
	DriverID, URL, Name, Number string
	Office, Status              string
	Place                       int
	Score, ScoreValue           string
	Percentile                  int
	HasChange                   bool
	Change, ChangeValue         string
	ChangeSign                  int
	// Weakest is the metric with the lowest score ("" none).
	Weakest, WeakestScore string
}

// Histogram is the distribution of the month's scores in bands of 10.
type Histogram struct {
	Bins     []HistogramBin
	Max      int
	Total    int
	Filtered bool
	// Label is the chart's accessible name.
	Label string
}

// HistogramBin is one band: Count drivers in all, Shown kept by the
// filters.
type HistogramBin struct {
	Label        string
	Count, Shown int
}

// The histogram's drawing area (SVG user units).
const (
	histW, histH      = 640, 220
	histLeft, histTop = 36, 12
	histPlotW         = histW - histLeft - 8
	histPlotH         = histH - histTop - 34
)

func (h Histogram) barX(i int) string {
	return f1(float64(histLeft) + float64(i)*float64(histPlotW)/10 + 3)
}

func (h Histogram) barW() string { return f1(float64(histPlotW)/10 - 6) }

func (h Histogram) barH(n int) float64 {
	if h.Max == 0 {
		return 0
	}
	return float64(n) / float64(h.Max) * histPlotH
}

func (h Histogram) barY(n int) string { return f1(float64(histTop) + histPlotH - h.barH(n)) }

func (h Histogram) barHeight(n int) string { return f1(h.barH(n)) }

func (h Histogram) labelX(i int) string {
	return f1(float64(histLeft) + (float64(i)+0.5)*float64(histPlotW)/10)
}

// gridLines are the value axis' lines: 0, half and the maximum.
func (h Histogram) gridLines() []int {
	if h.Max == 0 {
		return []int{0}
	}
	if h.Max == 1 {
		return []int{0, 1}
	}
	return []int{0, h.Max / 2, h.Max}
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// DriverRatingData is a driver's rating page.
type DriverRatingData struct {
	Driver DriverRef
	// Self: the driver looks at its own rating.
	Self                   bool
	URL                    string
	Month, MonthLabel, Max string
	Current                bool
	PrevURL, NextURL       string
	Score, ScoreValue      string
	Percentile             int
	HasChange              bool
	Change                 string
	ChangeSign             int
	Components             []ComponentBar
	Chart                  LineChart
	Months                 int
	MonthsURL              string
	HistoryAPI             string
	Advice                 []Advice
	RecalculateURL, CSRF   string
}

// ComponentBar is one metric of a rating.
type ComponentBar struct {
	Metric                      string
	Score, ScoreValue           string
	Weight, Contribution, Share string
	Details                     string
	Applicable                  bool
	// Percent is the score, 0–100, the bar's length.
	Percent float64
}

func (b ComponentBar) barWidth() string { return f1(max(0, min(100, b.Percent)) * 3) }

// Advice is one way to raise the score: a metric and what to do.
type Advice struct {
	Metric string
	// Points the metric misses in the total.
	Points string
	Items  []AdviceItem
}

// AdviceItem is one thing to do, with where to do it ("" none).
type AdviceItem struct {
	Text, URL string
}

// LineChart is a driver's monthly scores over a window of Months months.
type LineChart struct {
	Months int
	Ticks  []ChartTick
	Points []ChartPoint
	// Trend is the history's trend (improving, declining, stable,
	// insufficient_data); the trend line runs from TrendFrom to TrendTo
	// (month index, score).
	Trend              string
	HasTrend           bool
	TrendFrom, TrendTo [2]float64
	Slope              string
}

// ChartTick is a month on the time axis.
type ChartTick struct {
	Index int
	Label string
	Show  bool
}

// ChartPoint is one stored month.
type ChartPoint struct {
	Index            int
	Period, Label    string
	Score, ScoreText string
	Change           string
	Value            float64
	Percentile       int
}

// The line chart's drawing area.
const (
	lineW, lineH      = 640, 260
	lineLeft, lineTop = 40, 12
	linePlotW         = lineW - lineLeft - 14
	linePlotH         = lineH - lineTop - 40
)

func (c LineChart) x(i float64) float64 {
	if c.Months <= 1 {
		return lineLeft
	}
	return lineLeft + i*float64(linePlotW)/float64(c.Months-1)
}

func (c LineChart) y(v float64) float64 { return lineTop + (100-max(0, min(100, v)))/100*linePlotH }

func (c LineChart) px(p ChartPoint) string { return f1(c.x(float64(p.Index))) }
func (c LineChart) py(p ChartPoint) string { return f1(c.y(p.Value)) }

// path is the polyline through the points.
func (c LineChart) path() string {
	s := ""
	for i, p := range c.Points {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s,%s", c.px(p), c.py(p))
	}
	return s
}

func (c LineChart) trendLine() (x1, y1, x2, y2 string) {
	return f1(c.x(c.TrendFrom[0])), f1(c.y(c.TrendFrom[1])), f1(c.x(c.TrendTo[0])), f1(c.y(c.TrendTo[1]))
}

func (c LineChart) tickX(t ChartTick) string { return f1(c.x(float64(t.Index))) }

func gridY(v int) string { return f1(lineTop + float64(100-v)/100*linePlotH) }

// RatingConfigData is the configuration editor.
type RatingConfigData struct {
	CSRF  string
	Rows  []RatingConfigRow
	Total string
	// Errors are the refusals of the whole configuration (the sum, the
	// number enabled), translated.
	Errors  []string
	Preview *RatingPreview
}

// RatingConfigRow is one metric in the form.
type RatingConfigRow struct {
	Metric, Weight, Threshold, ThresholdKey    string
	Enabled                                    bool
	WeightErrors, ThresholdErrors, OtherErrors []string
}

// RatingPreview is how last month's ranking would change.
type RatingPreview struct {
	Month   string
	Changed int
	Rows    []RatingPreviewRow
}

// RatingPreviewRow is one driver in the preview.
type RatingPreviewRow struct {
	DriverID, Name, Number  string
	Before, After           string
	AfterValue              string
	Diff                    string
	DiffSign                int
	PlaceBefore, PlaceAfter int
	// Moved is the places gained (negative: lost).
	Moved int
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
