package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestSlowBodiesAreCutOff: 100 connections trickling their bodies (one byte
// every 100 ms, far below the minimum rate; half with a token, half
// without, JSON and multipart) are all closed by the server within the
// deadlines, while a normal client keeps getting correct answers. The
// normal client's p99 latency is logged, not asserted (no timed
// assertions); the bound checked is the closure, with a wide margin.
func TestSlowBodiesAreCutOff(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := web.DefaultDeadlines
	d.Grace, d.Whole, d.Upload = time.Second, 20*time.Second, 20*time.Second
	srv := web.HTTPServer("127.0.0.1:0", env.App.Echo, d)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()

	const slow = 100
	const bodyLen = 2000 // 200 s at the trickle's pace
	start := time.Now()
	closedAfter := make([]time.Duration, slow)
	var wg sync.WaitGroup
	for i := range slow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer conn.Close()
			auth, ctype, path := "", "application/json", "/api/v0/drivers"
			if i%2 == 0 {
				auth = "Authorization: Bearer " + hr.Token + "\r\n"
			}
			if i%4 == 1 {
				ctype = "multipart/form-data; boundary=x"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: %s\r\nContent-Length: %d\r\n\r\n", path, addr, auth, ctype, bodyLen)
			go func() {
				for range bodyLen {
					if _, err := conn.Write([]byte("{")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, err = io.Copy(io.Discard, conn)
			closedAfter[i] = time.Since(start)
			// EOF or a reset (the server closed with unread bytes) is the
			// server's closing; only the client's own timeout is not.
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("slow connection %d not closed by the server: %v", i, err)
			}
		}()
	}

	// A normal client meanwhile: every answer correct; p99 logged.
	var lat []time.Duration
	for range 200 {
		t0 := time.Now()
		res := hr.Get("/api/v0/drivers")
		lat = append(lat, time.Since(t0))
		res.Expect(http.StatusOK)
	}
	// A body sent at normal speed through the same server is read whole.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v0/drivers",
		strings.NewReader(`{"first_name":"Jan","last_name":"Novák","email":"jan@example.test"}`))
	req.Header.Set("Authorization", "Bearer "+hr.Token)
	req.Header.Set("Content-Type", "application/json")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusCreated {
		t.Errorf("a normal POST: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	wg.Wait()
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	sort.Slice(closedAfter, func(a, b int) bool { return closedAfter[a] < closedAfter[b] })
	t.Logf("normal client: p50 %v, p99 %v over %d requests; slow connections closed after %v … %v",
		lat[len(lat)/2], lat[len(lat)*99/100], len(lat), closedAfter[0], closedAfter[slow-1])
	// Closed by the rate rule, long before the whole-request bound (and
	// the 200 s the bodies would take).
	if closedAfter[slow-1] > d.Whole {
		t.Errorf("the last slow connection was closed after %v, past the whole-request bound %v", closedAfter[slow-1], d.Whole)
	}
}

// TestCutOffBodyIsNeverOK: a body trickled below the minimum rate (a phone
// on a poor link) is cut off by the server, and the client is told so: 408
// RequestTimeout with Connection: close (a JSON error on the API, the error
// page on the pages), never a 2xx, and nothing is stored. A JSON create,
// an API upload and a page upload of a signed-in driver; and a client that
// went away halfway gets no answer at all.
func TestCutOffBodyIsNeverOK(t *testing.T) {
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company, fixtures.Email("jan@acme.test"))
	var document uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'drivers_license'`, driver).Scan(&document); err != nil {
		t.Fatal(err)
	}
	cookies, csrf := devSession(t, env.Server.URL, company, auth.RoleDriver, "jan@acme.test")

	d := web.DefaultDeadlines
	d.Grace, d.Whole, d.Upload = time.Second, 20*time.Second, 20*time.Second
	srv := web.HTTPServer("127.0.0.1:0", env.App.Echo, d)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()

	const boundary = "slowboundary"
	upload := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"scan.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n"
	cases := []struct {
		name, path, header, start string
		json                      bool
	}{
		{"API create", "/api/v0/drivers", "Authorization: Bearer " + hr.Token + "\r\nContent-Type: application/json\r\n",
			`{"first_name":"Jan","last_name":"Pomalý","email":"slow@acme.test"}`, true},
		{"API upload", "/api/v0/documents/" + document.String() + "/files", "Authorization: Bearer " + hr.Token +
			"\r\nContent-Type: multipart/form-data; boundary=" + boundary + "\r\n", upload, true},
		{"page upload", "/drivers/" + driver.String() + "/documents/" + document.String(), "Cookie: " + cookies +
			"\r\nX-CSRF-Token: " + csrf + "\r\nHX-Request: true\r\nContent-Type: multipart/form-data; boundary=" + boundary + "\r\n", upload, false},
	}
	hr.Get("/api/v0/drivers").Expect(http.StatusOK) // the caller's user row exists before the checksum
	before := env.Checksum()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 100000\r\n\r\n%s", tc.path, addr, tc.header, tc.start)
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				// 20 bytes every 100 ms: 200 B/s, far below 1 KiB/s.
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					if _, err := conn.Write([]byte(strings.Repeat(" ", 20))); err != nil {
						return
					}
				}
			}()
			_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestTimeout || !res.Close {
				t.Fatalf("answered %s (Connection: close %v), want 408 and close; body %q", res.Status, res.Close, body)
			}
			if tc.json {
				var e web.ErrorBody
				if err := json.Unmarshal(body, &e); err != nil || e.Error != "RequestTimeout" || e.Message == "" {
					t.Errorf("body %q, want a RequestTimeout error", body)
				}
			} else if !strings.Contains(string(body), `data-testid="error-408"`) {
				t.Errorf("the page's answer is not the 408 error card: %q", body)
			}
		})
	}

	// A client that stops sending halfway and half-closes its side is
	// gone as far as the server knows (logged as 499): it must not read
	// an empty 200 OK either, only the end of the connection.
	t.Run("half-closed", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/v0/drivers HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 100000\r\n\r\n%s", addr, cases[0].header, cases[0].start)
		_ = conn.(*net.TCPConn).CloseWrite()
		_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		got, err := io.ReadAll(conn)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the server neither answered nor closed: %v", err)
		}
		if len(got) > 0 {
			t.Errorf("a client that went away was answered %q", got)
		}
	})
	if env.Checksum() != before {
		t.Error("a cut-off request stored something")
	}
}

// devSession signs in through the development sign-in page and returns the
// Cookie header of the session and its CSRF token.
func devSession(t *testing.T, base string, company uuid.UUID, role auth.Role, email string) (string, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/auth/dev")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	u, _ := url.Parse(base)
	token := func() string {
		for _, c := range jar.Cookies(u) {
			if c.Name == "konvoj_csrf" {
				return c.Value
			}
		}
		return ""
	}
	form := url.Values{"company_id": {company.String()}, "role": {string(role)}, "email": {email}, "_csrf": {token()}}
	res, err = client.PostForm(base+"/auth/dev", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dev sign-in: %s", res.Status)
	}
	var parts []string
	for _, c := range jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; "), token()
}
