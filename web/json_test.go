package web

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/rating"
)

// TestJSONSerializerMatchesStandard checks that the answers' encoder
// writes exactly what encoding/json writes, for the shapes the answers are
// made of and for the strings where encoders are known to differ: HTML
// characters, line and paragraph separators, invalid UTF-8, control
// characters, raw JSON with spaces, map key order, floats, embedded
// generic structs, omitempty, Marshaler and TextMarshaler values.
func TestJSONSerializerMatchesStandard(t *testing.T) {
	for name, v := range jsonSamples(t) {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
			if err := (jsonSerializer{}).Serialize(c, v, ""); err != nil {
				t.Fatal(err)
			}
			if got := rec.Body.String(); got != string(want)+"\n" {
				t.Errorf("encoded differently\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestJSONAnswerHasLength checks that an answer larger than net/http's
// buffers goes out with its Content-Length, not in chunks (whose end costs
// the client one more wake-up), in full, and as the status the handler set.
func TestJSONAnswerHasLength(t *testing.T) {
	big := make([]string, 600) // about 12 kB
	for i := range big {
		big[i] = "Novák <driver> & co."
	}
	e := echo.New()
	e.JSONSerializer = jsonSerializer{}
	e.GET("/big", func(c echo.Context) error { return c.JSON(http.StatusCreated, big) })
	srv := httptest.NewServer(e)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(big)
	if string(body) != string(want)+"\n" {
		t.Errorf("body of %d bytes differs from encoding/json's %d", len(body), len(want)+1)
	}
	if res.StatusCode != http.StatusCreated {
		t.Errorf("status %d, want 201", res.StatusCode)
	}
	if len(res.TransferEncoding) > 0 || res.ContentLength != int64(len(body)) {
		t.Errorf("sent with Transfer-Encoding %v and Content-Length %d, want no chunks and %d", res.TransferEncoding, res.ContentLength, len(body))
	}
}

// BenchmarkJSONSerializer encodes a list page of 20 items of the answers'
// shapes (amounts, dates, times, raw JSON, optional strings) with
// encoding/json and with the answers' encoder.
//
//	go test -run '^$' -bench JSONSerializer ./web
func BenchmarkJSONSerializer(b *testing.B) {
	one := jsonSamples(b)["envelope"].(envelope)
	page := envelope{page: page[item]{Total: 20}}
	for range 20 {
		page.Data = append(page.Data, one.Data[0])
	}
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := json.NewEncoder(io.Discard).Encode(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("serializer", func(b *testing.B) {
		b.ReportAllocs()
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
		for b.Loop() {
			c.Response().Writer = discardWriter{}
			if err := (jsonSerializer{}).Serialize(c, page, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (discardWriter) WriteHeader(int)             {}

// page, item and envelope have the shapes of the answers: a list page
// embedded in an envelope, items of amounts, dates, times and raw JSON.
type page[T any] struct {
	Data  []T `json:"data"`
	Total int `json:"total"`
}
type item struct {
	ID       uuid.UUID       `json:"id"`
	Name     string          `json:"name"`
	Phone    *string         `json:"phone"`
	Amount   money.Amount    `json:"amount"`
	Date     civil.Date      `json:"date"`
	Paid     *civil.Date     `json:"paid"`
	At       time.Time       `json:"at"`
	Meta     json.RawMessage `json:"meta"`
	Tags     []string        `json:"tags"`
	Deleted  *time.Time      `json:"deleted_at,omitempty"`
	Score    float64         `json:"score"`
	Counts   map[string]int  `json:"counts"`
	internal int             // unexported: neither encoder writes it
}

type envelope struct {
	page[item]
	Summary map[string]any `json:"summary"`
}

// jsonSamples are the values both encoders must write alike.
func jsonSamples(t testing.TB) map[string]any {
	phone := "+420 <b>&</b>"
	amount, err := money.Parse("-1234.5")
	if err != nil {
		t.Fatal(err)
	}
	day := civil.NewDate(2026, time.February, 28)
	// A stored snapshot's components as PostgreSQL prints jsonb: spaced,
	// keys by length, numbers with their scale.
	var stored rating.Components
	if err := stored.ScanBytes([]byte(`{"activity": {"score": 100.00, "weight": 10, "details": "9 orders of 8 expected in 2026-10.", "raw_value": 9, "applicable": true, "contribution": 10.0000}, "penalties_count": {"score": 66.67, "weight": 20, "details": "1 penalty <b>&</b>", "raw_value": null, "applicable": false, "contribution": 0}}`)); err != nil {
		t.Fatal(err)
	}
	values := map[string]any{
		"stored rating": rating.Rating{ID: uuid.MustParse("6a24eaf7-ac3b-4588-9e15-a5124f9cba0e"), TotalScore: "87.50", Components: stored},
		"computed rating": rating.Rating{TotalScore: "0", Components: rating.NewComponents(map[string]rating.ComponentView{
			"activity": {Score: "50.00", Weight: "10", Contribution: "5", Details: "<none>", Applicable: true}})},
		"strings": []string{"<script>alert(1)</script>", "a & b", "line\u2028para\u2029", "bad \xff\xfe utf-8",
			"tab\tnew\nline\x00\x1f", "Příliš žluťoučký kůň", "emoji 🚚", `quote " backslash \ slash /`},
		"envelope": envelope{
			page: page[item]{Data: []item{{
				ID: uuid.MustParse("6a24eaf7-ac3b-4588-9e15-a5124f9cba0e"), Name: "Jan Novák", Phone: &phone,
				Amount: amount, Date: day, Paid: &day, At: time.Date(2026, 11, 24, 15, 4, 5, 123456789, time.UTC),
				Meta: json.RawMessage(` { "b" : [1, 2 ,3], "a":"x" } `), Counts: map[string]int{"z": 1, "a": 2, "ř": 3},
				Score: 87.125,
			}, {}}, Total: 2},
			Summary: map[string]any{"nil": nil, "floats": []float64{0, 1e21, 1e-7, 123456789.5, math.MaxFloat64, -0.000001}},
		},
		"empty": struct {
			Nil   []int          `json:"nil"`
			Empty []int          `json:"empty"`
			M     map[string]int `json:"m"`
		}{Empty: []int{}},
	}
	return values
}
