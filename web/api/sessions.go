package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/web"
)

// The caller's own web sessions (docs/security.md, "Web sign-in and
// sessions"): the browsers signed in to the pages as the caller's user. A
// bearer token is not a session: it is never listed, current is false for
// every row, and it cannot be ended here (it lasts until its exp).

func (h *Handlers) mountSessions(g *web.Routes) {
	g.GET("/me/sessions", h.listSessions)
	g.DELETE("/me/sessions/:id", h.deleteSession)
}

// sessionJSON is one session in the API.
type sessionJSON struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at"`
	UserAgent  string    `json:"user_agent"`
	IPAddress  string    `json:"ip_address"`
	Current    bool      `json:"current"`
}

func (h *Handlers) listSessions(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	list, err := h.Sessions.List(ctx, p)
	if err != nil {
		return err
	}
	out := make([]sessionJSON, 0, len(list))
	for _, s := range list {
		out = append(out, sessionJSON{ID: s.ID.String(), CreatedAt: s.CreatedAt.UTC(), LastSeenAt: s.LastSeenAt.UTC(),
			UserAgent: s.UserAgent, IPAddress: s.IPAddress, Current: s.ID == p.SessionID})
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

func (h *Handlers) deleteSession(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	if err := h.Sessions.Delete(ctx, p, web.PathID(c, "id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
