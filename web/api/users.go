package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/web"
)

// The company's users (docs/security.md, "Users"): admins list them and
// deactivate or reactivate any but themselves.

func (h *Handlers) mountUsers(g *web.Routes) {
	g.GET("/users", h.listUsers)
	g.POST("/users/:id/deactivate", h.deactivateUser)
	g.POST("/users/:id/reactivate", h.reactivateUser)
}

// userJSON is one user in the API.
type userJSON struct {
	ID             string     `json:"id"`
	Email          string     `json:"email"`
	FirstName      *string    `json:"first_name"`
	LastName       *string    `json:"last_name"`
	Role           auth.Role  `json:"role"`
	IsActive       bool       `json:"is_active"`
	LastLoginAt    *time.Time `json:"last_login_at"`
	ActiveSessions int        `json:"active_sessions"`
}

func toUserJSON(u tenants.User) userJSON {
	out := userJSON{ID: u.ID.String(), Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, Role: u.Role,
		IsActive: u.IsActive, ActiveSessions: u.ActiveSessions}
	if u.LastLoginAt != nil {
		t := u.LastLoginAt.UTC()
		out.LastLoginAt = &t
	}
	return out
}

func (h *Handlers) listUsers(c echo.Context) error {
	page, err := h.Tenants.Users(c.Request().Context(), web.Principal(c), func(f *tenants.UserFilter) error {
		q := query{c: c}
		number, size := q.page(100)
		*f = tenants.UserFilter{Search: q.str("search"), Active: q.optBool("is_active"),
			Page: paging.Request{Number: number, Size: size}}
		if raw := q.str("role"); raw != "" {
			r, ok := auth.ParseRole(raw)
			if !ok {
				roles := make([]string, len(auth.Roles))
				for i, r := range auth.Roles {
					roles[i] = string(r)
				}
				return apperr.BadRequest("msg.finance_read.value_invalid", "field", "role", "value", raw,
					"allowed", strings.Join(roles, ", "))
			}
			f.Role = r
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	out := make([]userJSON, 0, len(page.Items))
	for _, u := range page.Items {
		out = append(out, toUserJSON(u))
	}
	return c.JSON(http.StatusOK, NewPage(c, out, page.Total, page.Request.Number, page.Request.Size))
}

func (h *Handlers) deactivateUser(c echo.Context) error {
	u, err := h.Tenants.Deactivate(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toUserJSON(u))
}

func (h *Handlers) reactivateUser(c echo.Context) error {
	u, err := h.Tenants.Reactivate(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toUserJSON(u))
}
