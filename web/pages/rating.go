package pages

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// Rating pages (docs/web-app.md, "Rating pages"): the company ranking of a
// month with its histogram and export, a driver's rating with its
// component bars and history chart (and, for the driver itself, what would
// raise the score), and the configuration editor with a preview. Every
// read goes through the rating service the API uses, which never writes on
// a read.

// rankingPerPage is the ranking table's page size.
const rankingPerPage = 50

func (p *Pages) mountRating(r *web.Routes) {
	p.addOwnNav(views.NavItem{Href: "/ratings", Label: "nav.ranking", Icon: "star", Description: "nav.ranking.about"},
		auth.RatingRead, func(pr auth.Principal) (views.NavItem, bool) {
			// A driver's entry is its own rating (none when unlinked).
			if pr.DriverID == nil {
				return views.NavItem{}, false
			}
			return views.NavItem{Href: ratingURL(*pr.DriverID), Label: "nav.my_rating", Icon: "star", Description: "nav.my_rating.about"}, true
		})
	r.GET("/ratings", p.ranking)
	r.GET("/ratings/export", p.rankingExport)
	r.GET("/ratings/config", p.ratingConfig)
	r.POST("/ratings/config", p.saveRatingConfig)
	r.GET("/drivers/:id/rating", p.driverRating)
	r.POST("/drivers/:id/rating/recalculate", p.recalculateRating)
}

func ratingURL(driverID uuid.UUID) string { return driverURL(driverID) + "/rating" }

// scoreText writes a score with 2 decimals in the language's form.
func scoreText(lang i18n.Lang, d decimal.Decimal) string {
	s := d.StringFixed(2)
	if lang != i18n.EN {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// changeText is a change of score with its sign; 0 has none.
func changeText(lang i18n.Lang, d decimal.Decimal) string {
	s := scoreText(lang, d.Abs())
	switch d.Sign() {
	case 1:
		return "+" + s
	case -1:
		return "−" + s
	}
	return s
}

func numberDecimal(n json.Number) decimal.Decimal {
	d, _ := decimal.NewFromString(n.String())
	return d
}

// ---- The ranking ----

// scoreBands are the ranking's score filter: [from, to) except the last,
// which includes 100.
var scoreBands = []struct {
	key      string
	from, to int64
}{
	{"0-50", 0, 50}, {"50-70", 50, 70}, {"70-85", 70, 85}, {"85-100", 85, 101},
}

func inBand(band string, score decimal.Decimal) bool {
	for _, b := range scoreBands {
		if b.key == band {
			return score.GreaterThanOrEqual(decimal.NewFromInt(b.from)) && score.LessThan(decimal.NewFromInt(b.to))
		}
	}
	return true
}

// rankingSorts are the ranking's sortable columns and their default order.
var rankingSorts = map[string]string{
	"name": "asc", "office": "asc", "status": "asc", "total_score": "desc",
	"rank_percentile": "desc", "score_change": "desc", "weakest": "asc",
}

// rankingState is the ranking's month, filters, sort and page as the
// address holds them.
type rankingState struct {
	Period, Office, Status, Band, Search string
	SortBy, SortOrder                    string
	Page                                 int
}

func readRankingState(q url.Values) rankingState {
	s := rankingState{
		Period: strings.TrimSpace(q.Get("period")), Office: q.Get("office_id"), Status: q.Get("status"),
		Band: q.Get("band"), Search: strings.TrimSpace(q.Get("q")), SortBy: q.Get("sort_by"), SortOrder: q.Get("sort_order"),
	}
	if _, ok := rankingSorts[s.SortBy]; !ok {
		s.SortBy = ""
	}
	if s.SortOrder != "asc" && s.SortOrder != "desc" {
		s.SortOrder = ""
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

func (s rankingState) values() url.Values {
	q := url.Values{}
	for name, v := range map[string]string{"period": s.Period, "office_id": s.Office, "status": s.Status, "band": s.Band,
		"q": s.Search, "sort_by": s.SortBy, "sort_order": s.SortOrder} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	return q
}

func (s rankingState) url(base string) string {
	if q := s.values(); len(q) > 0 {
		return base + "?" + q.Encode()
	}
	return base
}

// sort is the effective column and order.
func (s rankingState) sort() (string, string) {
	by, order := s.SortBy, s.SortOrder
	if by == "" {
		by = "total_score"
	}
	if order == "" {
		order = rankingSorts[by]
	}
	return by, order
}

// rankedRow is a board row with what the page sorts and shows.
type rankedRow struct {
	rating.BoardRow
	Place   int
	Office  string
	sortKey string // folded name or office, when sorting by them
}

// fold lowers and strips accents, so "novak" finds "Novák".
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, strings.ToLower(s))
	if err != nil {
		return strings.ToLower(s)
	}
	return out
}

// rankingRows reads the month's board and returns every row (places over
// the whole company) and the rows the filters keep, sorted. check, when
// set, checks the request's other parameters once the caller may see the
// board (403 before 400).
func (p *Pages) rankingRows(c echo.Context, st *rankingState, check func() error) (all, shown []rankedRow, month rating.Period, offices []drivers.Office, err error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	board, month, err := p.svc.Rating.Board(ctx, pr, func() (*rating.Period, error) {
		if check != nil {
			if err := check(); err != nil {
				return nil, err
			}
		}
		if st.Period == "" {
			return nil, nil
		}
		m, err := rating.ParsePeriod(st.Period)
		if err != nil {
			return nil, apperr.Invalid("period", "msg.rating_read.period_month")
		}
		return &m, nil
	})
	if err != nil {
		return nil, nil, month, nil, err
	}
	offices, err = p.svc.Drivers.Offices(ctx, pr)
	if err != nil {
		return nil, nil, month, nil, err
	}
	officeName := make(map[uuid.UUID]string, len(offices))
	for _, o := range offices {
		officeName[o.ID] = o.Name
	}
	all = make([]rankedRow, len(board))
	words := strings.Fields(fold(st.Search))
	by, order := st.sort()
	officeKey := map[uuid.UUID]string{}
	for _, o := range offices {
		officeKey[o.ID] = fold(o.Name)
	}
	for i, b := range board {
		r := rankedRow{BoardRow: b, Place: i + 1}
		if i > 0 && b.TotalScore.Equal(board[i-1].TotalScore) {
			r.Place = all[i-1].Place
		}
		if b.OfficeID != nil {
			r.Office = officeName[*b.OfficeID]
		}
		all[i] = r
		if st.Office != "" && (b.OfficeID == nil || b.OfficeID.String() != st.Office) {
			continue
		}
		if st.Status != "" && b.Status != st.Status {
			continue
		}
		if st.Band != "" && !inBand(st.Band, b.TotalScore) {
			continue
		}
		if !matchesAll(b.SearchText, words) {
			continue
		}
		switch by {
		case "name":
			r.sortKey = fold(b.LastName + " " + b.FirstName)
		case "office":
			if b.OfficeID != nil {
				r.sortKey = officeKey[*b.OfficeID]
			}
		}
		shown = append(shown, r)
	}
	sortRanking(shown, by, order == "desc")
	return all, shown, month, offices, nil
}

// matchesAll reports whether the search text holds every word.
func matchesAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// sortRanking orders the rows by a column; ties keep the ranking's order
// (score, then internal number).
func sortRanking(rows []rankedRow, by string, desc bool) {
	cmpDec := func(a, b decimal.Decimal) int { return a.Cmp(b) }
	var cmp func(a, b rankedRow) int
	switch by {
	case "name", "office":
		cmp = func(a, b rankedRow) int { return strings.Compare(a.sortKey, b.sortKey) }
	case "status":
		cmp = func(a, b rankedRow) int { return strings.Compare(a.Status, b.Status) }
	case "rank_percentile":
		cmp = func(a, b rankedRow) int { return a.RankPercentile - b.RankPercentile }
	case "score_change":
		// Rows without a previous month come last either way.
		cmp = func(a, b rankedRow) int {
			switch {
			case a.ScoreChange == nil && b.ScoreChange == nil:
				return 0
			case a.ScoreChange == nil:
				if desc {
					return -1
				}
				return 1
			case b.ScoreChange == nil:
				if desc {
					return 1
				}
				return -1
			}
			return cmpDec(*a.ScoreChange, *b.ScoreChange)
		}
	case "weakest":
		cmp = func(a, b rankedRow) int { return cmpDec(a.WeakestScore, b.WeakestScore) }
	default:
		cmp = func(a, b rankedRow) int { return cmpDec(a.TotalScore, b.TotalScore) }
	}
	slices.SortStableFunc(rows, func(a, b rankedRow) int {
		if desc {
			return cmp(b, a)
		}
		return cmp(a, b)
	})
}

var rankingColumns = []struct{ label, sortBy, class string }{
	{"ranking.col.place", "", "text-right"},
	{"ranking.col.driver", "name", ""},
	{"ranking.col.office", "office", "hidden md:table-cell"},
	{"ranking.col.status", "status", "hidden lg:table-cell"},
	{"ranking.col.score", "total_score", "text-right"},
	{"ranking.col.percentile", "rank_percentile", "text-right hidden sm:table-cell"},
	{"ranking.col.change", "score_change", "text-right"},
	{"ranking.col.weakest", "weakest", "hidden md:table-cell"},
}

// ranking is the company's ranking of a month. A driver is sent to its
// own rating.
func (p *Pages) ranking(c echo.Context) error {
	pr := web.Principal(c)
	lang := i18n.From(c.Request().Context())
	st := readRankingState(c.QueryParams())
	all, shown, month, offices, err := p.rankingRows(c, &st, nil)
	if apperr.KindOf(err) == apperr.KindForbidden && pr.DriverID != nil {
		// A driver has no ranking: its page is its own rating.
		return p.redirect(c, ratingURL(*pr.DriverID))
	}
	if err != nil {
		return err
	}
	// The ranking is filtered and sorted here, so its page is cut here.
	req := paging.Request{Number: st.Page, Size: rankingPerPage}
	page := paging.New(shown[min(len(shown), req.Offset()):min(len(shown), req.Offset()+req.Size)], len(shown), req)
	if last := page.LastPage(); st.Page > last {
		st.Page = last
		return p.redirect(c, st.url("/ratings"))
	}
	d := views.RankingData{
		Month: month.String(), MonthLabel: monthLabel(lang, month), Max: rating.PeriodOf(pr.Today()).String(),
		Search: st.Search, Total: len(all), Shown: len(shown), ClearURL: "/ratings?period=" + month.String(),
		CanConfigure: shows(pr, auth.RatingManage), SortBy: st.SortBy, SortOrder: st.SortOrder,
	}
	exp := st
	exp.Page = 0
	q := exp.values()
	q.Set("format", "csv")
	d.ExportCSV = "/ratings/export?" + q.Encode()
	q.Set("format", "xlsx")
	d.ExportXLSX = "/ratings/export?" + q.Encode()
	for _, o := range offices {
		d.Offices = append(d.Offices, views.Option{Value: o.ID.String(), Label: o.Name, Selected: st.Office == o.ID.String()})
	}
	for _, s := range drivers.Statuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("driver.status." + s), Selected: st.Status == s})
	}
	for _, b := range scoreBands {
		d.Bands = append(d.Bands, views.Option{Value: b.key, Label: lang.T("ranking.band." + b.key), Selected: st.Band == b.key})
	}
	by, order := st.sort()
	for _, col := range rankingColumns {
		sc := views.SortColumn{Label: col.label, Class: col.class}
		if col.sortBy != "" {
			next := st
			next.Page, next.SortBy, next.SortOrder = 1, col.sortBy, rankingSorts[col.sortBy]
			if col.sortBy == by {
				sc.Active, sc.Desc = true, order == "desc"
				next.SortOrder = map[string]string{"asc": "desc", "desc": "asc"}[order]
			}
			sc.URL = next.url("/ratings")
		}
		d.Columns = append(d.Columns, sc)
	}
	for _, r := range page.Items {
		d.Rows = append(d.Rows, rankingRowView(lang, r, month))
	}
	d.Pager = pager(page, func(n int) string { at := st; at.Page = n; return at.url("/ratings") })
	d.Histogram = histogram(lang, all, shown)
	return p.render(c, http.StatusOK, "ranking.title", views.Ranking(d))
}

func rankingRowView(lang i18n.Lang, r rankedRow, month rating.Period) views.RankingRow {
	v := views.RankingRow{
		DriverID: r.DriverID.String(), URL: ratingURL(r.DriverID) + "?period=" + month.String(),
		Name: r.FirstName + " " + r.LastName, Number: r.InternalNumber, Office: r.Office, Status: r.Status,
		Place: r.Place, Score: scoreText(lang, r.TotalScore), ScoreValue: r.TotalScore.StringFixed(2),
		Percentile: r.RankPercentile, Weakest: r.Weakest,
	}
	if r.ScoreChange != nil {
		v.HasChange, v.Change, v.ChangeValue, v.ChangeSign = true, changeText(lang, *r.ScoreChange), r.ScoreChange.StringFixed(2), r.ScoreChange.Sign()
	}
	if r.Weakest != "" {
		v.WeakestScore = scoreText(lang, r.WeakestScore)
	}
	return v
}

// histogram counts the company's scores in ten bands of 10 points (the
// last includes 100), and how many of each the filters keep.
func histogram(lang i18n.Lang, all, shown []rankedRow) views.Histogram {
	h := views.Histogram{Bins: make([]views.HistogramBin, 10)}
	bin := func(d decimal.Decimal) int { return min(9, max(0, int(d.IntPart()/10))) }
	for i := range h.Bins {
		h.Bins[i].Label = strconv.Itoa(i*10) + "–" + strconv.Itoa(i*10+10)
	}
	for _, r := range all {
		h.Bins[bin(r.TotalScore)].Count++
	}
	for _, r := range shown {
		h.Bins[bin(r.TotalScore)].Shown++
	}
	for _, b := range h.Bins {
		h.Max = max(h.Max, b.Count)
	}
	h.Total = len(all)
	h.Filtered = len(shown) != len(all)
	h.Label = lang.T("ranking.histogram.label", "count", strconv.Itoa(len(all)))
	return h
}

// rankingExport downloads the filtered ranking, in its order, as CSV or
// XLSX.
func (p *Pages) rankingExport(c echo.Context) error {
	lang := i18n.From(c.Request().Context())
	st := readRankingState(c.QueryParams())
	var format export.Format
	_, shown, month, _, err := p.rankingRows(c, &st, func() error {
		var err error
		format, err = export.FormatParam(c.QueryParam("format"))
		return err
	})
	if err != nil {
		return err
	}
	name := "rating-" + month.String()
	return web.Export(c, format, name, lang.T("ranking.export.sheet"), func(start func() (export.Writer, error)) error {
		w, err := start()
		if err != nil {
			return err
		}
		header := []string{}
		for _, k := range []string{"place", "internal_number", "first_name", "last_name", "office", "status", "score",
			"percentile", "previous", "change", "weakest", "weakest_score"} {
			header = append(header, lang.T("ranking.export."+k))
		}
		if err := w.Header(header); err != nil {
			return err
		}
		for _, r := range shown {
			prev, change := export.Text(""), export.Text("")
			if r.PreviousScore != nil {
				prev, change = export.Number(*r.PreviousScore), export.Number(*r.ScoreChange)
			}
			weak, weakScore := export.Text(""), export.Text("")
			if r.Weakest != "" {
				weak, weakScore = export.Text(lang.T("rating.metric."+r.Weakest)), export.Number(r.WeakestScore)
			}
			if err := w.Row([]export.Cell{
				export.Number(decimal.NewFromInt(int64(r.Place))), export.Text(r.InternalNumber), export.Text(r.FirstName),
				export.Text(r.LastName), export.Text(r.Office), export.Text(lang.T("driver.status." + r.Status)),
				export.Number(r.TotalScore), export.Number(decimal.NewFromInt(int64(r.RankPercentile))), prev, change, weak, weakScore,
			}); err != nil {
				return err
			}
		}
		return w.Close()
	})
}

// monthLabel names a month in the language ("November 2026").
func monthLabel(lang i18n.Lang, m rating.Period) string {
	return lang.T("rating.month."+strconv.Itoa(int(m.First().Month())), "year", strconv.Itoa(m.First().Year()))
}

// sortedMetrics lists the keys of components in display order.
func sortedMetrics(cs map[string]rating.ComponentView) []string {
	out := make([]string, 0, len(cs))
	for _, m := range rating.Metrics {
		if _, ok := cs[m]; ok {
			out = append(out, m)
		}
	}
	extra := []string{}
	for m := range cs {
		if !slices.Contains(rating.Metrics, m) {
			extra = append(extra, m)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
