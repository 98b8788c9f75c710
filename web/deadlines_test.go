package web_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
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
