package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/idempotency"
)

// HeaderIdempotencyKey and HeaderIdempotentReplayed are the headers of
// idempotent retries (docs/idempotency.md).
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// maxStoredResponse bounds the response kept for a key; a larger one is
// not kept (the key is released, a retry runs again).
const maxStoredResponse = 1 << 20

// idempotent is the one middleware of every API POST (docs/idempotency.md):
// with an Idempotency-Key header, the first request's response (status and
// body) is stored for the company and key; a repeat of the same request
// (the same user and role, method, path and body) gets it back with
// Idempotent-Replayed: true, another request under the key is 422, and a
// repeat while the first still runs is 409. The body is hashed as the
// handler reads it, never buffered: uploads stream as before. A response
// of 500 or more is not kept, so a retry runs the request again.
//
// A request under a key runs for at most the longest request deadline
// (its context ends then), and a key left running is taken over only a
// margin after that (idempotency.AbandonedAfter): a repeat that takes a key
// over cannot run beside a first request that may still commit.
func (s *Server) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		values, sent := req.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]
		if req.Method != http.MethodPost || !sent {
			return next(c)
		}
		key := ""
		if len(values) == 1 {
			key = values[0]
		}
		if !idempotency.ValidKey(key) {
			return apperr.Invalid(HeaderIdempotencyKey, "msg.api.idempotency_key", "max", idempotency.MaxKeyLength)
		}
		p := Principal(c)
		path := req.URL.Path
		if req.URL.RawQuery != "" {
			path += "?" + req.URL.RawQuery
		}
		r := idempotency.Request{CompanyID: p.CompanyID, UserID: p.UserID, Role: string(p.Role), Key: key,
			Method: req.Method, Path: path, Claim: uuid.New()}
		// Counted from before the claim, so that the request's time is up
		// before its key can be taken over.
		deadline := time.Now().Add(s.longest)
		state, stored, err := s.idempotency.Begin(req.Context(), r)
		if err != nil {
			return err
		}
		body := &hashingBody{r: req.Body, h: sha256.New(), max: s.maxRequestBody()}
		switch state {
		case idempotency.Running:
			return apperr.Conflict("msg.api.idempotency_running")
		case idempotency.Done:
			body.drain()
			sameUser := (stored.UserID == nil && p.UserID == uuid.Nil) || (stored.UserID != nil && *stored.UserID == p.UserID)
			// The role too: a replay skips the handler and its role check,
			// so it is only for the role the answer was made for.
			same := sameUser && stored.Role == r.Role && stored.Method == r.Method && stored.Path == r.Path &&
				!body.tooLarge && body.sum() == stored.RequestHash
			if !same {
				return apperr.Invalid(HeaderIdempotencyKey, "msg.api.idempotency_reused")
			}
			h := c.Response().Header()
			h.Set(HeaderIdempotentReplayed, "true")
			if stored.ContentType != "" {
				h.Set(echo.HeaderContentType, stored.ContentType)
			}
			c.Response().WriteHeader(stored.Status)
			_, err := c.Response().Write(stored.Body)
			return err
		}
		return s.runIdempotent(c, next, r, body, deadline)
	}
}

// runIdempotent runs the first request under a key, until the deadline at
// the latest, and stores its answer.
func (s *Server) runIdempotent(c echo.Context, next echo.HandlerFunc, r idempotency.Request, body *hashingBody, deadline time.Time) (err error) {
	// The key's bookkeeping finishes even when the client has gone.
	ctx := context.WithoutCancel(c.Request().Context())
	keep := false
	defer func() {
		if keep {
			return
		}
		if ferr := s.idempotency.Forget(ctx, r); ferr != nil {
			s.log.ErrorContext(ctx, "release idempotency key", slog.String("error", ferr.Error()))
		}
	}()
	outer := c.Request()
	bounded, cancel := context.WithDeadline(outer.Context(), deadline)
	defer cancel()
	req := outer.WithContext(bounded)
	req.Body = body
	c.SetRequest(req)
	res := c.Response()
	capture := &responseCapture{ResponseWriter: res.Writer}
	res.Writer = capture
	herr := next(c)
	// The error is answered under the request's own context: a request cut
	// off by the deadline while its client still waits gets an error, not
	// the silence meant for a client that has gone.
	c.SetRequest(req.WithContext(outer.Context()))
	if herr != nil {
		// Answer the error here, so the stored response is the one sent.
		c.Error(herr)
	}
	res.Writer = capture.ResponseWriter
	if res.Status >= 500 || capture.overflow || !res.Committed {
		return nil
	}
	body.drain()
	if body.tooLarge {
		return nil
	}
	if err := s.idempotency.Finish(ctx, r, body.sum(), res.Status, res.Header().Get(echo.HeaderContentType), capture.buf.Bytes()); err != nil {
		s.log.ErrorContext(ctx, "store idempotent response", slog.String("error", err.Error()))
		return nil
	}
	keep = true
	return nil
}

// maxRequestBody is the most of a request body the middleware hashes: the
// largest upload with its multipart overhead. A longer body is never
// stored or replayed.
func (s *Server) maxRequestBody() int64 {
	return s.opts.Config.UploadMaxBytes + multipartOverhead
}

// hashingBody hashes a request body as it is read.
type hashingBody struct {
	r        io.ReadCloser
	h        hash.Hash
	n, max   int64
	tooLarge bool
}

func (b *hashingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.h.Write(p[:n])
	b.n += int64(n)
	if b.n > b.max {
		b.tooLarge = true
	}
	return n, err
}

func (b *hashingBody) Close() error { return b.r.Close() }

// drain reads what the handler left of the body (up to the limit), so the
// hash covers all of it.
func (b *hashingBody) drain() {
	_, _ = io.Copy(io.Discard, io.LimitReader(b, b.max+1-b.n))
	if b.n > b.max {
		b.tooLarge = true
	}
}

func (b *hashingBody) sum() string { return hex.EncodeToString(b.h.Sum(nil)) }

// responseCapture keeps a copy of the response body as it is written.
type responseCapture struct {
	http.ResponseWriter
	buf      bytes.Buffer
	overflow bool
}

func (w *responseCapture) Write(p []byte) (int, error) {
	if !w.overflow {
		if w.buf.Len()+len(p) > maxStoredResponse {
			w.overflow = true
			w.buf.Reset()
		} else {
			w.buf.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}
