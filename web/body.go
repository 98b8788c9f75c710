package web

import (
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
)

// ctxBody holds the request's *requestBody.
const ctxBody = "konvoj.body"

// bodies reads every request body through one requestBody, installed
// before any middleware or handler can read it (docs/security.md,
// "Request bodies").
func (s *Server) bodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body != nil && req.Body != http.NoBody {
			b := &requestBody{body: req.Body, header: c.Response().Header()}
			req.Body = b
			c.Set(ctxBody, b)
		}
		return next(c)
	}
}

// requestBody is a request body that remembers why it ended early: the
// server's deadline cut it off (web.Deadlines: 408 RequestTimeout). Once
// failed it keeps failing with the same error, so whoever reads next sees
// it, and the error handler answers it whatever a handler made of it.
type requestBody struct {
	body   io.ReadCloser
	header http.Header
	err    error
}

func (b *requestBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.body.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.err = apperr.Wrap(err, apperr.KindRequestTimeout, "msg.common.body_timeout")
		// The rest of the body will not be read: the connection ends
		// with the answer.
		b.header.Set(echo.HeaderConnection, "close")
		return n, b.err
	}
	return n, err
}

func (b *requestBody) Close() error { return b.body.Close() }

// bodyFailure is why the request's body ended early (nil when it did not):
// the answer then is that error, not whatever the handler made of a body
// it could not read (a form that seemed empty, a 400).
func bodyFailure(c echo.Context) error {
	if b, ok := c.Get(ctxBody).(*requestBody); ok {
		return b.err
	}
	return nil
}
