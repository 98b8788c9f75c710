package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
)

// ErrorBody is the JSON body of every API error (docs/errors.md).
type ErrorBody struct {
	Error      string              `json:"error"`
	Message    string              `json:"message"`
	Errors     map[string][]string `json:"errors,omitempty"`
	RetryAfter *int                `json:"retry_after,omitempty"`
	RequestID  string              `json:"request_id,omitempty"`
	// Extra are the error's own keys (apperr.Error.Body), beside these.
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes the body with its extra keys.
func (b ErrorBody) MarshalJSON() ([]byte, error) {
	type plain ErrorBody
	out, err := json.Marshal(plain(b))
	if err != nil || len(b.Extra) == 0 {
		return out, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	for k, v := range b.Extra {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// statusOf maps a domain error kind to its HTTP status and error name, the
// one place where this happens.
func statusOf(k apperr.Kind) (int, string) {
	switch k {
	case apperr.KindUnauthorized:
		return http.StatusUnauthorized, "Unauthorized"
	case apperr.KindForbidden:
		return http.StatusForbidden, "Forbidden"
	case apperr.KindAccessDenied:
		return http.StatusForbidden, "AccessDenied"
	case apperr.KindNotFound:
		return http.StatusNotFound, "NotFound"
	case apperr.KindBadRequest:
		return http.StatusBadRequest, "BadRequest"
	case apperr.KindValidation:
		return http.StatusUnprocessableEntity, "ValidationError"
	case apperr.KindDuplicate:
		return http.StatusConflict, "DuplicateEntry"
	case apperr.KindConflict:
		return http.StatusConflict, "Conflict"
	case apperr.KindPayloadTooLarge:
		return http.StatusRequestEntityTooLarge, "PayloadTooLarge"
	case apperr.KindUnsupportedMediaType:
		return http.StatusUnsupportedMediaType, "UnsupportedMediaType"
	case apperr.KindRequestTimeout:
		return http.StatusRequestTimeout, "RequestTimeout"
	case apperr.KindNotImplemented:
		return http.StatusNotImplemented, "NotImplemented"
	default:
		return http.StatusInternalServerError, "ServerError"
	}
}

// RateLimitedError is returned by the limiter middleware.
type RateLimitedError struct{ RetryAfter int }

func (e *RateLimitedError) Error() string { return "rate limit exceeded" }

// ToBody turns any error into a status and body. Unexpected errors become a
// 500 that carries only the request id; the cause goes to the log.
func ToBody(err error, requestID string) (int, ErrorBody, bool) {
	err = textError(err)
	var (
		ae  *apperr.Error
		he  *echo.HTTPError
		rl  *RateLimitedError
		syn *json.SyntaxError
		ute *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &rl):
		return http.StatusTooManyRequests, ErrorBody{Error: "RateLimitExceeded",
			Message: "Too many requests. Please retry after the given number of seconds.", RetryAfter: &rl.RetryAfter}, false
	case errors.As(err, &ae):
		status, name := statusOf(ae.Kind)
		if status == http.StatusInternalServerError {
			break
		}
		return status, ErrorBody{Error: name, Message: ae.Message, Errors: ae.Fields, Extra: ae.Body}, false
	case errors.As(err, &syn), errors.As(err, &ute):
		return http.StatusBadRequest, ErrorBody{Error: "BadRequest", Message: "The request body is not valid JSON."}, false
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			return http.StatusNotFound, ErrorBody{Error: "NotFound", Message: "The requested resource was not found."}, false
		case http.StatusMethodNotAllowed:
			return http.StatusMethodNotAllowed, ErrorBody{Error: "MethodNotAllowed", Message: "The method is not allowed on this resource."}, false
		case http.StatusRequestEntityTooLarge:
			return http.StatusRequestEntityTooLarge, ErrorBody{Error: "PayloadTooLarge", Message: "The request body is too large."}, false
		case http.StatusUnsupportedMediaType:
			return http.StatusBadRequest, ErrorBody{Error: "BadRequest", Message: "Unsupported content type; send application/json."}, false
		case http.StatusBadRequest:
			return http.StatusBadRequest, ErrorBody{Error: "BadRequest", Message: "The request could not be understood."}, false
		case http.StatusUnauthorized:
			return http.StatusUnauthorized, ErrorBody{Error: "Unauthorized", Message: "Invalid token"}, false
		case http.StatusForbidden:
			// Echo's CSRF middleware refuses cross-site form posts this way.
			return http.StatusForbidden, ErrorBody{Error: "Forbidden", Message: "The request was refused."}, false
		case http.StatusServiceUnavailable:
			return http.StatusServiceUnavailable, ErrorBody{Error: "ServiceUnavailable", Message: "The service is shutting down or not ready."}, false
		}
	}
	return http.StatusInternalServerError, ErrorBody{Error: "ServerError",
		Message: "Something went wrong on our side. Quote the request id when you report it.", RequestID: requestID}, true
}

// errorHandler renders every error of every route: JSON on /api, a short
// page elsewhere. It logs unexpected errors once, with the request id.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if berr := bodyFailure(c); berr != nil {
		// The body was cut off (or refused): that is the answer, whatever
		// the handler made of the body it could not read. net/http
		// cancelled the request's context when the read failed, yet the
		// client is still there to read it.
		err = berr
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithoutCancel(req.Context())))
	}
	if c.Request().Context().Err() != nil {
		// The client disconnected (or the server is cutting the request
		// off): nobody reads an answer, and it is no server error. The log
		// line says 499.
		c.Set(ctxErrorName, "ClientClosedRequest")
		return
	}
	reqID := c.Response().Header().Get(echo.HeaderXRequestID)
	err = textError(err)
	status, body, unexpected := ToBody(err, reqID)
	if unexpected {
		s.log.ErrorContext(c.Request().Context(), "request failed", slog.String("request_id", reqID),
			slog.String("method", c.Request().Method), slog.String("route", c.Path()), slog.Any("error", err))
	}
	if status == http.StatusTooManyRequests && body.RetryAfter != nil {
		c.Response().Header().Set("Retry-After", itoa(*body.RetryAfter))
	}
	c.Set(ctxErrorName, body.Error)
	if !wantsJSON(c) && s.renderPageError != nil {
		if perr := s.renderPageError(c, status, body, err); perr == nil {
			return
		}
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if err := c.JSON(status, body); err != nil {
		s.log.ErrorContext(c.Request().Context(), "write error response", slog.Any("error", err))
	}
}

// wantsJSON: API paths and everything that is not a page request answer JSON.
func wantsJSON(c echo.Context) bool {
	p := c.Request().URL.Path
	return isAPI(p) || strings.HasPrefix(p, "/healthz") ||
		strings.HasPrefix(p, "/readyz") || strings.HasPrefix(p, "/metrics")
}

// isAPI: the path is the API's.
func isAPI(path string) bool { return strings.HasPrefix(path, "/api/") || path == "/api" }
