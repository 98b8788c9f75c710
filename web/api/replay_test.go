package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// replayUpdate rewrites the replay's golden file instead of comparing:
// go test ./web/api -run TestAPIReplay -update.
var replayUpdate = flag.Bool("update", false, "TestAPIReplay: rewrite testdata/replay/api.golden with the answers of this run")

// replayGolden holds the recorded answers of TestAPIReplay.
var replayGolden = filepath.Join("testdata", "replay", "api.golden")

// replayHeaders are the response headers a client relies on, recorded
// beside status and body.
var replayHeaders = []string{"Content-Type", "Content-Disposition", "Location", "Cache-Control", "Etag", "X-Total-Count"}

// TestAPIReplay sends a fixed script of requests, as every role, to a
// world built the same way each run, and holds each answer (status,
// client-facing headers, body bytes) to the recorded one. It guards
// refactors behind the API: a change of field order, number formatting,
// error name or message fails here. Only what varies from run to run is
// normalised (ids, timestamps, dates relative to today, secrets, hashes).
func TestAPIReplay(t *testing.T) {
	env := webtest.New(t)
	rp := newReplay(t)

	// The world. Its dates are fixed and long past (hired in 2019, paid in
	// May and June 2024), so they stay literal in the answers and nothing
	// is dated in this month or this year: only what the server derives
	// from its clock (today, a file name) is relative, and normalised.
	company := env.Company("Replay Transport", "enterprise")
	other := env.Company("Other Transport", "enterprise")
	admin := env.As(company, auth.RoleAdmin, "admin@replay.test")
	hr := env.As(company, auth.RoleHRManager, "hr@replay.test")
	acc := env.As(company, auth.RoleAccountant, "accountant@replay.test")
	disp := env.As(company, auth.RoleDispatcher, "dispatcher@replay.test")
	me := env.As(company, auth.RoleDriver, "eva.adamova@replay.test")
	stranger := env.As(other, auth.RoleAdmin, "admin@other.test")
	anon := env.Anonymous()
	eva := env.Driver(company, fixtures.Name("Eva", "Adamová"), fixtures.Email("eva.adamova@replay.test"), fixtures.HireDate("2019-01-07"))
	jan := env.Driver(company, fixtures.Name("Jan", "Beneš"), fixtures.Email("jan.benes@replay.test"), fixtures.HireDate("2019-03-04"))
	foreign := env.Driver(other, fixtures.Name("Petr", "Cizí"), fixtures.Email("petr.cizi@other.test"), fixtures.HireDate("2019-05-06"))

	m2, m1 := civil.NewDate(2024, time.May, 1), civil.NewDate(2024, time.June, 1)
	day := func(m civil.Date, d int) string { return m.AddDays(d - 1).String() }
	fin := func(d uuid.UUID, rest string) string { return "/api/v0/drivers/" + d.String() + "/finance" + rest }
	pen := func(d uuid.UUID, rest string) string { return "/api/v0/drivers/" + d.String() + "/penalties" + rest }
	for _, tx := range []struct {
		driver     uuid.UUID
		typ, amt   string
		date, desc string
	}{
		{eva, "bonus", "1250.00", day(m2, 10), "Safe driving"},
		{eva, "overtime", "310.50", day(m2, 12), "Weekend"},
		{eva, "bonus", "500", day(m1, 10), "Referral"},
		{jan, "overtime", "0.10", day(m1, 11), "Rounding"},
	} {
		hr.Post(fin(tx.driver, ""), map[string]any{"transaction_type": tx.typ, "amount": tx.amt, "transaction_date": tx.date, "description": tx.desc}).
			Expect(http.StatusCreated)
	}
	penalty := rp.id(hr.Post(pen(eva, ""), map[string]any{"penalty_type": "speeding", "severity": "moderate", "amount": "150.00",
		"incident_date": day(m1, 15), "location": "D1 km 42", "description": "Radar, 112 km/h"}).Expect(http.StatusCreated))
	me.Put(pen(eva, "/"+penalty+"/dispute"), map[string]any{"dispute_reason": "I was not driving."}).Expect(http.StatusOK)
	closedPeriod := periodStarting(t, acc, fin(eva, "/periods?period_type=monthly"), m2.String())
	acc.Post(fin(eva, "/periods/"+closedPeriod+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	var hook uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `INSERT INTO webhook_endpoints (company_id, url, events, secret, enabled, description)
		VALUES ($1, 'https://hooks.example.test/konvoj', '{driver.updated}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', false, 'ERP') RETURNING id`,
		company).Scan(&hook); err != nil {
		t.Fatalf("webhook endpoint: %v", err)
	}

	drv := func(d uuid.UUID) string { return "/api/v0/drivers/" + d.String() }
	missing := "/api/v0/drivers/00000000-0000-4000-8000-000000000000"

	// Errors before any record: no token, a bad token, an unknown route.
	rp.do("anonymous", anon, "GET", "/api/v0/drivers", "")
	rp.do("bad token", env.WithToken("not-a-token"), "GET", "/api/v0/drivers", "")
	rp.do("admin", admin, "GET", "/api/v0/orders", "")

	// Drivers.
	rp.do("admin", admin, "GET", "/api/v0/drivers?sort=last_name", "")
	rp.do("dispatcher", disp, "GET", "/api/v0/drivers?search=Bene", "")
	rp.do("driver", me, "GET", "/api/v0/drivers", "")
	rp.do("hr", hr, "GET", drv(eva), "")
	rp.do("driver", me, "GET", drv(eva), "")
	rp.do("driver", me, "GET", drv(jan), "")
	rp.do("other company", stranger, "GET", drv(eva), "")
	rp.do("hr", hr, "GET", missing, "")
	rp.do("hr", hr, "POST", "/api/v0/drivers", `{"first_name":"Karel","last_name":"Černý","email":"karel.cerny@replay.test","phone":"+420 777 123 456","hire_date":"2019-09-02"}`)
	carl := rp.lastID
	rp.do("hr", hr, "POST", "/api/v0/drivers", `{"first_name":"Karel","last_name":"Dvojník","email":"karel.cerny@replay.test"}`)
	rp.do("hr", hr, "POST", "/api/v0/drivers", `{"first_name":"","email":"not-an-email","hire_date":"31.12.2019"}`)
	rp.do("hr", hr, "POST", "/api/v0/drivers", `{"first_name":`)
	rp.do("accountant", acc, "POST", "/api/v0/drivers", `{"first_name":"Nikdo","last_name":"Nový"}`)
	rp.do("hr", hr, "PUT", "/api/v0/drivers/"+carl, `{"phone":"+420 777 000 111","notes":"Night shifts"}`)
	rp.do("admin", admin, "GET", "/api/v0/drivers?updated_since=yesterday", "")

	// Documents.
	rp.do("hr", hr, "GET", drv(eva)+"/documents", "")
	doc := replayFirstID(t, rp.last)
	rp.upload("hr", hr, "/api/v0/documents/"+doc+"/files", "licence.pdf", []byte("%PDF-1.7\n% replay\n"))
	file := rp.lastID
	rp.upload("hr", hr, "/api/v0/documents/"+doc+"/files", "licence.exe", []byte("MZ\x90\x00"))
	rp.do("hr", hr, "PUT", "/api/v0/documents/"+doc, `{"number":"EA 123456","country":"CZ","valid_from":"2019-02-01","meta":{"categories":"C, CE"}}`)
	rp.do("hr", hr, "PUT", "/api/v0/documents/"+doc, `{"valid_from":"2019-02-01","valid_until":"2019-01-01"}`)
	rp.do("driver", me, "PUT", "/api/v0/documents/"+doc, `{"number":"X"}`)
	rp.do("hr", hr, "GET", "/api/v0/documents/"+doc+"/files/versions", "")
	rp.do("hr", hr, "POST", "/api/v0/documents/"+doc+"/files/"+file+"/review", `{"decision":"approve"}`)
	rp.do("hr", hr, "PUT", "/api/v0/companies/"+company.String()+"/document-rules", `{"rules":[{"document_type":"passport","requires_review":true}]}`)
	rp.upload("driver", me, "/api/v0/documents/"+doc+"/files", "licence-2.pdf", []byte("%PDF-1.7\n% replay, second page\n"))
	mine := rp.lastID
	rp.do("hr", hr, "POST", "/api/v0/documents/"+doc+"/files/"+mine+"/review", `{"decision":"reject"}`)
	rp.do("hr", hr, "POST", "/api/v0/documents/"+doc+"/files/"+mine+"/review", `{"decision":"reject","reason":"The photo is blurred."}`)
	rp.upload("driver", me, "/api/v0/documents/"+doc+"/files", "licence-3.pdf", []byte("%PDF-1.7\n% replay, sharp\n"))
	mine = rp.lastID
	rp.do("dispatcher", disp, "POST", "/api/v0/documents/"+doc+"/files/"+mine+"/review", `{"decision":"approve"}`)
	rp.do("hr", hr, "POST", "/api/v0/documents/"+doc+"/files/"+mine+"/review", `{"decision":"approve"}`)
	rp.do("hr", hr, "GET", "/api/v0/documents/"+doc+"/files/versions", "")
	rp.do("driver", me, "GET", "/api/v0/files/"+file+"/download", "")
	rp.do("other company", stranger, "GET", "/api/v0/files/"+file+"/download", "")

	// Finance.
	rp.do("accountant", acc, "GET", fin(eva, "?per_page=10"), "")
	rp.do("driver", me, "GET", fin(eva, ""), "")
	rp.do("dispatcher", disp, "GET", fin(eva, ""), "")
	rp.do("hr", hr, "POST", fin(eva, ""), fmt.Sprintf(`{"transaction_type":"bonus","amount":"75.5","transaction_date":%q,"description":"Clean truck"}`, day(m1, 20)))
	tx := rp.lastID
	rp.do("hr", hr, "POST", fin(eva, ""), `{"transaction_type":"bribe","amount":"-1","transaction_date":"someday"}`)
	rp.do("hr", hr, "POST", fin(eva, ""), fmt.Sprintf(`{"transaction_type":"bonus","amount":"1.00","transaction_date":%q}`, day(m2, 20)))
	rp.do("accountant", acc, "PUT", fin(eva, "/"+tx), `{"status":"approved"}`)
	rp.do("accountant", acc, "PUT", fin(eva, "/"+tx), `{"status":"pending"}`)
	rp.do("accountant", acc, "GET", fin(eva, "/periods"), "")
	open := periodStarting(t, acc, fin(eva, "/periods?period_type=monthly"), m1.String())
	rp.do("accountant", acc, "POST", fin(eva, "/periods/"+open+"/close"), "")
	rp.do("accountant", acc, "POST", fin(eva, "/periods/"+closedPeriod+"/reopen"), `{}`)
	rp.do("accountant", acc, "POST", fin(eva, "/periods/"+closedPeriod+"/reopen"), `{"reason":"Late invoice."}`)
	rp.do("admin", admin, "POST", fin(eva, "/periods/"+closedPeriod+"/close"), `{"force":true}`)
	rp.do("accountant", acc, "GET", fin(eva, "/aggregates"), "")
	rp.do("accountant", acc, "GET", fin(eva, "/export?format=csv"), "")
	rp.do("accountant", acc, "GET", "/api/v0/finance/periods?period_start="+m2.String()[:7], "")
	rp.do("accountant", acc, "GET", "/api/v0/finance/periods?period_start="+m2.String(), "")

	// Penalties.
	rp.do("hr", hr, "POST", pen(jan, ""), fmt.Sprintf(`{"penalty_type":"late_delivery","amount":"40","incident_date":%q,"description":"Loading zone"}`, day(m1, 18)))
	jpen := rp.lastID
	rp.do("hr", hr, "POST", pen(jan, ""), `{"penalty_type":"other","amount":"0","incident_date":"2999-01-01"}`)
	rp.do("driver", me, "PUT", pen(jan, "/"+jpen+"/dispute"), `{"dispute_reason":"Not mine."}`)
	rp.do("hr", hr, "GET", pen(eva, "/"+penalty), "")
	rp.do("hr", hr, "PUT", pen(eva, "/"+penalty+"/resolve"), `{"resolution_action":"reduce","new_amount":"75.00","resolution":"Partly upheld."}`)
	rp.do("hr", hr, "PUT", pen(eva, "/"+penalty+"/resolve"), `{"resolution_action":"keep"}`)
	rp.do("driver", me, "GET", pen(eva, ""), "")

	// Rating, audit log, webhooks, imports.
	rp.do("hr", hr, "GET", drv(eva)+"/rating?period="+m1.String()[:7], "")
	rp.do("driver", me, "GET", drv(jan)+"/rating", "")
	rp.do("admin", admin, "GET", "/api/v0/audit-logs?entity_type=driver&entity_id="+carl, "")
	rp.do("dispatcher", disp, "GET", "/api/v0/audit-logs", "")
	rp.do("admin", admin, "GET", "/api/v0/webhooks", "")
	rp.do("hr", hr, "GET", "/api/v0/webhooks/"+hook.String(), "")
	rp.do("admin", admin, "POST", "/api/v0/webhooks", `{"url":"ftp://x","events":["driver.exploded"]}`)
	rp.multipart("hr", hr, "/api/v0/imports/drivers", filePart("ridici.csv", []byte("first_name,last_name,email\nLucie,Horáková,lucie@replay.test\nKarel,Černý,karel.cerny@replay.test\n,Bez,\n")), field("dry_run", "true"))
	rp.multipart("driver", me, "/api/v0/imports/drivers", filePart("ridici.csv", []byte("first_name\nX\n")), field("dry_run", "true"))

	// Deletes last: the feed then shows the deleted driver.
	rp.do("dispatcher", disp, "DELETE", "/api/v0/drivers/"+carl, "")
	rp.do("admin", admin, "DELETE", "/api/v0/drivers/"+carl, "")
	rp.do("admin", admin, "DELETE", "/api/v0/drivers/"+carl, "")
	rp.do("other company", stranger, "DELETE", drv(jan), "")
	rp.do("other company", stranger, "GET", drv(foreign), "")
	// The change feed shows a change a second after its commit
	// (docs/change-feed.md): wait that out, then read it in pages.
	time.Sleep(1200 * time.Millisecond)
	rp.do("admin", admin, "GET", "/api/v0/drivers?updated_since=2000-01-01T00:00:00Z&limit=2", "")
	var feed struct {
		Meta struct {
			NextCursor string `json:"next_cursor"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(rp.last, &feed); err != nil || feed.Meta.NextCursor == "" {
		t.Fatalf("feed page without next_cursor (%v): %s", err, rp.last)
	}
	rp.alias(url.QueryEscape(feed.Meta.NextCursor), "<cursor:1>")
	rp.do("admin", admin, "GET", "/api/v0/drivers?limit=2&include_deleted=true&cursor="+url.QueryEscape(feed.Meta.NextCursor), "")
	rp.do("driver", me, "GET", "/api/v0/drivers?updated_since=2000-01-01T00:00:00Z&include_deleted=true", "")

	rp.check()
}

// periodStarting is the id of the caller's monthly period starting on start.
func periodStarting(t *testing.T, c *webtest.Caller, path, start string) string {
	t.Helper()
	var page struct {
		Data []struct {
			ID          string `json:"id"`
			PeriodStart string `json:"period_start"`
		} `json:"data"`
	}
	c.Get(path).Expect(http.StatusOK).Decode(&page)
	for _, p := range page.Data {
		if p.PeriodStart == start {
			return p.ID
		}
	}
	t.Fatalf("no period starting %s in %s", start, path)
	return ""
}

// replayFirstID is the id of the first item of a list answer.
func replayFirstID(t *testing.T, body []byte) string {
	t.Helper()
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Data) == 0 {
		t.Fatalf("list without items (%v): %s", err, body)
	}
	return page.Data[0].ID
}

// replay records the script's answers, normalised, in order.
type replay struct {
	t       *testing.T
	entries []replayEntry
	ids     map[string]string
	aliases []string // pairs: the text of this run, its placeholder
	today   civil.Date
	// last is the raw body of the latest answer and lastID its "id".
	last   []byte
	lastID string
}

type replayEntry struct{ title, text string }

func newReplay(t *testing.T) *replay {
	return &replay{t: t, ids: map[string]string{}, today: civil.DateOf(pragueToday())}
}

// id is the "id" of an answer's JSON object.
func (rp *replay) id(r *webtest.Response) string {
	rp.t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	r.Decode(&v)
	return v.ID
}

// do sends a JSON request (body: raw JSON text, "" for none) and
// records it; the body is sent as written, so the golden file shows it.
func (rp *replay) do(who string, c *webtest.Caller, method, path, body string) {
	rp.t.Helper()
	var send any
	if body != "" {
		send = body
	}
	rp.record(who, method, path, body, c.Do(method, path, send))
}

// upload sends a file to a multipart upload endpoint and records it.
func (rp *replay) upload(who string, c *webtest.Caller, path, name string, data []byte) {
	rp.t.Helper()
	rp.multipart(who, c, path, part{name: "file", filename: name, contentType: "application/octet-stream", body: data})
}

// multipart sends multipart parts and records the exchange.
func (rp *replay) multipart(who string, c *webtest.Caller, path string, parts ...part) {
	rp.t.Helper()
	body, h := multipartBody(rp.t, parts...)
	var desc []string
	for _, p := range parts {
		if p.filename != "" {
			desc = append(desc, fmt.Sprintf("%s=@%s (%d bytes)", p.name, p.filename, len(p.body)))
		} else {
			desc = append(desc, p.name+"="+string(p.body))
		}
	}
	rp.record(who, http.MethodPost, path, "multipart: "+strings.Join(desc, "; "), c.Send(http.MethodPost, path, body, h))
}

// record keeps one exchange, normalised, as the golden file shows it:
// a title (number, caller, method, path), the request body, the status,
// replayHeaders and the body.
func (rp *replay) record(who, method, path, req string, res *webtest.Response) {
	rp.last, rp.lastID = res.Body, ""
	var v struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(res.Body, &v) == nil {
		rp.lastID = v.ID
	}
	title := fmt.Sprintf("%02d %s %s %s", len(rp.entries)+1, who, method, rp.normalise(path))
	var b strings.Builder
	if req != "" {
		fmt.Fprintf(&b, "> %s\n", rp.normalise(req))
	}
	fmt.Fprintf(&b, "status: %d\n", res.Status)
	for _, h := range replayHeaders {
		if v := res.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(h), rp.normalise(v))
		}
	}
	b.WriteString("\n")
	b.WriteString(rp.body(res))
	rp.entries = append(rp.entries, replayEntry{title: title, text: b.String()})
}

// body is the answer's body as recorded: text normalised byte for byte,
// anything else by its size.
func (rp *replay) body(res *webtest.Response) string {
	ct := res.Header.Get("Content-Type")
	text := strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/") || ct == ""
	if !text {
		return fmt.Sprintf("<%d bytes of %s>\n", len(res.Body), ct)
	}
	s := rp.normalise(string(res.Body))
	if !strings.HasSuffix(s, "\n") {
		s += "\n<no final newline>\n"
	}
	return s
}

var (
	replayUUID   = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	replaySecret = regexp.MustCompile(`whsec_[A-Za-z0-9]+`)
	replayHash   = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	replayTime   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`)
	replayDate   = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	replayMonth  = regexp.MustCompile(`\b(\d{4})-(\d{2})\b`)
	// replayOpaque are JSON string fields whose value is made of a
	// timestamp and an id in a form a client must not read.
	replayOpaque = regexp.MustCompile(`"(next_cursor|etag|request_id)":"[^"]*"`)
	// replayLifetime is the part of the lifetime aggregates that counts
	// the months from the first transaction to today.
	replayLifetime = regexp.MustCompile(`"avg_monthly_earnings":-?\d+\.\d\d(,"currency":"[A-Z]{3}","metadata":\{"employment_months":)\d+,`)
)

// alias makes normalise write text, a value of this run that no pattern
// recognises (an opaque cursor), as placeholder.
func (rp *replay) alias(text, placeholder string) {
	rp.aliases = append(rp.aliases, text, placeholder)
}

// normalise replaces what differs between runs by stable placeholders:
// a UUID by <id:N> in order of first appearance, a timestamp by <time>,
// a date near today by its place relative to this month, secrets and
// hashes by their kind. Everything else stays byte for byte.
func (rp *replay) normalise(s string) string {
	s = strings.NewReplacer(rp.aliases...).Replace(s)
	s = replayUUID.ReplaceAllStringFunc(s, func(id string) string {
		id = strings.ToLower(id)
		if _, ok := rp.ids[id]; !ok {
			rp.ids[id] = fmt.Sprintf("<id:%d>", len(rp.ids)+1)
		}
		return rp.ids[id]
	})
	s = replaySecret.ReplaceAllString(s, "<whsec>")
	s = replayHash.ReplaceAllString(s, "<sha256>")
	s = replayOpaque.ReplaceAllString(s, `"$1":"<opaque>"`)
	s = replayLifetime.ReplaceAllString(s, `"avg_monthly_earnings":<per month>$1<months>,`)
	s = replayTime.ReplaceAllString(s, "<time>")
	s = replayDate.ReplaceAllStringFunc(s, func(d string) string {
		date, err := civil.Parse(d)
		if err != nil || !rp.near(date) {
			return d
		}
		k := rp.monthsAgo(date)
		switch {
		case date == rp.today:
			return "<today>"
		case date.Day() == 1:
			return fmt.Sprintf("<M%s:first>", k)
		case date == date.MonthEnd():
			return fmt.Sprintf("<M%s:last>", k)
		}
		return fmt.Sprintf("<M%s:%02d>", k, date.Day())
	})
	return replayMonth.ReplaceAllStringFunc(s, func(m string) string {
		date, err := civil.Parse(m + "-01")
		if err != nil || !rp.near(date) {
			return m
		}
		return fmt.Sprintf("<M%s>", rp.monthsAgo(date))
	})
}

// near: dates within two months of today come from the clock; the
// world's fixed dates are older and stay literal.
func (rp *replay) near(d civil.Date) bool {
	return d.After(rp.today.AddMonths(-2)) && d.Before(rp.today.AddMonths(2))
}

// monthsAgo is the date's month relative to this one: "", "-1", "+2".
func (rp *replay) monthsAgo(d civil.Date) string {
	n := (d.Year()-rp.today.Year())*12 + int(d.Month()) - int(rp.today.Month())
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%+d", n)
}

// check compares the answers with the golden file, or rewrites it.
func (rp *replay) check() {
	t := rp.t
	t.Helper()
	var got bytes.Buffer
	for _, e := range rp.entries {
		fmt.Fprintf(&got, "### %s\n%s\n", e.title, e.text)
	}
	if *replayUpdate {
		if err := os.MkdirAll(filepath.Dir(replayGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(replayGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d answers to %s", len(rp.entries), replayGolden)
		return
	}
	raw, err := os.ReadFile(replayGolden)
	if err != nil {
		t.Fatalf("read golden file (create it with -update): %v", err)
	}
	want := parseReplay(string(raw))
	for i, e := range rp.entries {
		if i >= len(want) {
			t.Fatalf("answer %d is not recorded (%d recorded): %s\n\ngot:\n%s", i+1, len(want), e.title, e.text)
		}
		if w := want[i]; w != e {
			t.Fatalf("answer %d differs from %s (an intended API change updates it with -update, in the same commit)\n\nrequest: %s\nrecorded request: %s\n\n--- want\n%s\n--- got\n%s\n%s",
				i+1, replayGolden, e.title, w.title, w.text, e.text, firstDiff(w.text, e.text))
		}
	}
	if len(want) > len(rp.entries) {
		t.Fatalf("%d answers recorded, the script sent %d; first missing: %s", len(want), len(rp.entries), want[len(rp.entries)].title)
	}
}

// parseReplay splits a golden file into its answers.
func parseReplay(s string) []replayEntry {
	chunks := strings.Split("\n"+s, "\n### ")[1:]
	out := make([]replayEntry, 0, len(chunks))
	for i, chunk := range chunks {
		title, text, _ := strings.Cut(chunk, "\n")
		if i == len(chunks)-1 {
			text = strings.TrimSuffix(text, "\n") // the blank line after the last answer
		}
		out = append(out, replayEntry{title: title, text: text})
	}
	return out
}

// firstDiff points at the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			at := 0
			for at < len(wl) && at < len(gl) && wl[at] == gl[at] {
				at++
			}
			return fmt.Sprintf("first difference: line %d, byte %d\n want: %s\n  got: %s", i+1, at+1, excerpt(wl, at), excerpt(gl, at))
		}
	}
	return ""
}

// excerpt is the part of a line around byte at.
func excerpt(line string, at int) string {
	from, to := max(0, at-60), min(len(line), at+60)
	return strconv.Quote(line[from:to])
}
