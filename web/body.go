package web

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
)

// MaxBodyBytes is the largest request body of a route that takes no file:
// a JSON body, a page's form. An upload route raises its own request's
// limit, after its access check, with CapUploadBody.
const MaxBodyBytes = 1 << 20

// ctxBody holds the request's *requestBody.
const ctxBody = "konvoj.body"

// bodies reads every request body through one requestBody, installed
// before any middleware or handler can read it, and capped at
// MaxBodyBytes (docs/security.md, "Request bodies").
func (s *Server) bodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body != nil && req.Body != http.NoBody {
			b := newRequestBody(c.Response().Writer, req.Body, MaxBodyBytes)
			req.Body = b
			c.Set(ctxBody, b)
		}
		return next(c)
	}
}

// requestBody is a request body read at most to its limit, which
// remembers why it ended early: past the limit (413 PayloadTooLarge), or
// cut off by the server's deadline (web.Deadlines: 408 RequestTimeout).
// Once failed it keeps failing with the same error, so whoever reads next
// sees it, and the error handler answers it whatever a handler made of it.
type requestBody struct {
	raw io.ReadCloser
	// r is raw through http.MaxBytesReader, allowing limit-n more bytes;
	// past the limit net/http closes the connection after the answer.
	r io.ReadCloser
	// w is net/http's own writer (not a wrapper a middleware installs
	// later), which http.MaxBytesReader tells that the body was refused.
	w        http.ResponseWriter
	n, limit int64
	err      error
}

func newRequestBody(w http.ResponseWriter, raw io.ReadCloser, limit int64) *requestBody {
	b := &requestBody{raw: raw, w: w}
	b.setLimit(limit)
	return b
}

// setLimit lets the body grow to limit bytes in all.
func (b *requestBody) setLimit(limit int64) {
	if b.err != nil {
		return
	}
	b.limit = limit
	b.r = http.MaxBytesReader(b.w, b.raw, max(limit-b.n, 0))
}

func (b *requestBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		b.err = apperr.PayloadTooLarge("msg.common.body_too_large", "max", b.limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.err = apperr.Wrap(err, apperr.KindRequestTimeout, "msg.common.body_timeout")
	default:
		return n, err
	}
	// The rest of the body will not be read: the connection ends with
	// the answer.
	b.w.Header().Set(echo.HeaderConnection, "close")
	return n, b.err
}

func (b *requestBody) Close() error { return b.raw.Close() }

// bodyOf is the request's body reader; one is made for a request that did
// not pass the bodies middleware.
func bodyOf(c echo.Context) *requestBody {
	if b, ok := c.Get(ctxBody).(*requestBody); ok {
		return b
	}
	req := c.Request()
	b := newRequestBody(c.Response().Writer, req.Body, MaxBodyBytes)
	req.Body = b
	c.Set(ctxBody, b)
	return b
}

// bodyFailure is why the request's body ended early (nil when it did not):
// the answer then is that error, not whatever the handler made of a body
// it could not read (a form that seemed empty, a 400).
func bodyFailure(c echo.Context) error {
	if b, ok := c.Get(ctxBody).(*requestBody); ok {
		return b.err
	}
	return nil
}

// wholeBody reads a request body that is not a file upload (multipart)
// into memory before the handler runs. The services check access first and
// read their input after, some while holding a row lock (an update loads
// its record FOR UPDATE): the input must then be in hand, not on its way
// from a slow client. The body is capped at MaxBodyBytes; a failure to read
// it is kept and given to whoever reads it (bodyFailure answers it).
func wholeBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody || strings.HasPrefix(req.Header.Get(echo.HeaderContentType), echo.MIMEMultipartForm) {
			return next(c)
		}
		data, err := io.ReadAll(bodyOf(c))
		req.Body = &readBody{data: data, err: err}
		return next(c)
	}
}

// readBody is a body already read: its bytes, then the error that ended
// the read (io.EOF when it ended well).
type readBody struct {
	data []byte
	err  error
}

func (b *readBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (b *readBody) Close() error { return nil }
