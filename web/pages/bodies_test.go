package pages_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// tempWatch measures what requests write to the temporary folder: it
// points TMPDIR at a fresh folder and records the largest total size of
// the files in it, polled every millisecond, so a file that lives only
// for the length of a request is seen too.
type tempWatch struct {
	dir  string
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func watchTemp(t *testing.T) *tempWatch {
	w := &tempWatch{dir: t.TempDir(), stop: make(chan struct{}), done: make(chan struct{})}
	t.Setenv("TMPDIR", w.dir)
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(time.Millisecond):
			}
			var total int64
			_ = filepath.WalkDir(w.dir, func(_ string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if info, err := d.Info(); err == nil {
						total += info.Size()
					}
				}
				return nil
			})
			if total > w.peak.Load() {
				w.peak.Store(total)
			}
		}
	}()
	t.Cleanup(func() { close(w.stop); <-w.done })
	return w
}

// since returns the peak seen while f ran (and a moment after, for files
// removed when the request ends).
func (w *tempWatch) during(f func()) int64 {
	w.peak.Store(0)
	f()
	time.Sleep(20 * time.Millisecond)
	return w.peak.Load()
}

// postLarge sends a multipart POST whose file part holds size bytes
// (made as they are sent, never held in memory), after the given text
// fields, with the headers, on a connection of its own. It returns the
// answer's status, 0 when the connection ended without one.
func postLarge(t *testing.T, base, path string, header http.Header, fields [][2]string, size int64) int {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const boundary = "largeboundary"
	var head strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&head, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", boundary, f[0], f[1])
	}
	fmt.Fprintf(&head, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%%PDF-1.7\n", boundary)
	tail := "\r\n--" + boundary + "--\r\n"
	length := int64(head.Len()) + size + int64(len(tail))
	go func() {
		var req strings.Builder
		fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n", path, u.Host, boundary, length)
		for k, vs := range header {
			for _, v := range vs {
				fmt.Fprintf(&req, "%s: %s\r\n", k, v)
			}
		}
		req.WriteString("\r\n" + head.String())
		if _, err := io.WriteString(conn, req.String()); err != nil {
			return
		}
		chunk := make([]byte, 64<<10)
		for sent := int64(0); sent < size; sent += int64(len(chunk)) {
			if _, err := conn.Write(chunk[:min(int64(len(chunk)), size-sent)]); err != nil {
				return // the server answered and closed: the rest is not wanted
			}
		}
		_, _ = io.WriteString(conn, tail)
	}()
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// TestLargeBodiesNeverReachDisk: a large multipart body (64 MiB) sent
// without signing in to the pages anyone may post to (sign-out, the
// language switch, the development sign-in) is refused (403: no CSRF
// token; 413) and nothing of it is written to the temporary folder: the
// CSRF check never parses a body, and every body is capped at 1 MiB
// before anything reads it. Signed in, with the token, a page that takes
// no file refuses it as 413 just as early.
func TestLargeBodiesNeverReachDisk(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	temp := watchTemp(t)
	const size = 64 << 20
	const bound = 2 << 20 // the 1 MiB cap with room to spare; the broken server wrote all 64 MiB

	for _, path := range []string{"/logout", "/language", "/auth/dev"} {
		var status int
		peak := temp.during(func() { status = postLarge(t, env.Server.URL, path, nil, nil, size) })
		if status != http.StatusForbidden && status != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s without a token: %d, want 403 or 413", path, status)
		}
		if peak > bound {
			t.Errorf("POST %s without a token wrote %d bytes to the temporary folder", path, peak)
		}
	}

	signedIn := http.Header{"Cookie": {cookieHeader(hr)}, "X-Csrf-Token": {hr.cookie("konvoj_csrf")}}
	for _, path := range []string{"/language", "/drivers/new"} {
		var status int
		peak := temp.during(func() { status = postLarge(t, env.Server.URL, path, signedIn, nil, size) })
		if status != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s signed in, 64 MiB: %d, want 413", path, status)
		}
		if peak > bound {
			t.Errorf("POST %s signed in wrote %d bytes to the temporary folder", path, peak)
		}
	}
}

// TestPlainFormUploads: the document upload form works without
// JavaScript, where the CSRF token travels as the form's first field
// (`_csrf`, read from the first part of the stream, never by parsing the
// body): a file within UPLOAD_MAX_BYTES is stored; a driver's 64 MiB one
// is refused as 413 having written no more than the limit to the
// temporary folder; a token that is not the first part is not looked for.
func TestPlainFormUploads(t *testing.T) {
	const limit = 1 << 20
	env := devEnv(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = limit }))
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	path := documentPath(t, env, driver, "drivers_license")
	jan := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	token := jan.cookie("konvoj_csrf")
	cookie := http.Header{"Cookie": {cookieHeader(jan)}}
	temp := watchTemp(t)

	if status := postLarge(t, env.Server.URL, path, cookie, [][2]string{{"_csrf", token}, {"number", "AB 123"}}, 10<<10); status != http.StatusSeeOther {
		t.Fatalf("a plain form upload with the token as its first field: %d, want 303", status)
	}
	jan.get(path).expect(t, http.StatusOK).contains(t, "AB 123")

	var status int
	peak := temp.during(func() { status = postLarge(t, env.Server.URL, path, cookie, [][2]string{{"_csrf", token}}, 64<<20) })
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("a driver's 64 MiB upload: %d, want 413", status)
	}
	if peak > 3*limit {
		t.Errorf("a driver's 64 MiB upload over UPLOAD_MAX_BYTES (%d) wrote %d bytes to the temporary folder", limit, peak)
	}

	if status := postLarge(t, env.Server.URL, path, cookie, [][2]string{{"number", "CD 456"}, {"_csrf", token}}, 10<<10); status != http.StatusForbidden {
		t.Errorf("the token as the second field: %d, want 403", status)
	}
}

// cookieHeader is the Cookie header the browser sends.
func cookieHeader(b *browser) string {
	u, _ := url.Parse(b.base)
	var parts []string
	for _, c := range b.c.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}
