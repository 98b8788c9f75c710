package pages

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/labstack/echo/v4"
)

// csrfField is the form field of the CSRF token (views: name="_csrf").
const csrfField = "_csrf"

// csrfPeek is how much of a multipart body is read for its first part,
// the CSRF token of a form posted without JavaScript.
const csrfPeek = 2 << 10

// formToken puts the CSRF token of a form post into the X-CSRF-Token
// header, the one place the CSRF check looks (htmx and static/upload.js
// send it there themselves). It comes from the `_csrf` field of a
// url-encoded body (capped like every body, web.MaxBodyBytes), never from
// the query string, which leaks into logs and Referer headers; and of a
// multipart body only when `_csrf` is its first part, as the forms put
// it, read from the body's first csrfPeek bytes, which go back in front of
// the body. The rest of a multipart body is never read for the check, so
// nothing of a refused upload is parsed or written to disk
// (docs/security.md, "Pages").
func formToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
			return next(c)
		}
		if req.Header.Get(echo.HeaderXCSRFToken) != "" {
			return next(c)
		}
		token := ""
		mt, params, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
		switch mt {
		case echo.MIMEApplicationForm:
			if err := req.ParseForm(); err == nil {
				token = req.PostForm.Get(csrfField)
			}
		case echo.MIMEMultipartForm:
			token = firstPartToken(req, params["boundary"])
		}
		if token != "" {
			req.Header.Set(echo.HeaderXCSRFToken, token)
		}
		return next(c)
	}
}

// firstPartToken is the value of the multipart body's first part when
// that part is the `_csrf` field and ends within the body's first csrfPeek
// bytes; "" otherwise. The bytes read are put back in front of the body.
func firstPartToken(req *http.Request, boundary string) string {
	if boundary == "" {
		return ""
	}
	head := make([]byte, csrfPeek)
	n, err := io.ReadFull(req.Body, head)
	head = head[:n]
	body := req.Body
	req.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), body), body}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "" // the body's own error (too slow, too large) answers
	}
	part, err := multipart.NewReader(bytes.NewReader(head), boundary).NextPart()
	if err != nil || part.FormName() != csrfField || part.FileName() != "" {
		return ""
	}
	value, err := io.ReadAll(part)
	if err != nil {
		return "" // the part does not end within the first bytes
	}
	return string(value)
}
