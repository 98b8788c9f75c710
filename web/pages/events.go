package pages

import (
	"context"
	"errors"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web"
)

// The pages' way into the live-update stream (docs/live-updates.md): GET
// /events with the session cookie is the same stream as GET
// /api/v0/events with a token. A page opens it with
// new EventSource("/events"); the stream ends when the session does
// (sign-out, the session ended elsewhere or expired, the user deactivated).

func (p *Pages) mountEvents(g *web.Routes, s *web.Server) {
	g.GET(web.PageEventsPath, func(c echo.Context) error {
		secret := p.cookies.sessionSecret(c)
		first := web.Principal(c)
		recheck := func(ctx context.Context) (auth.Principal, error) {
			sess, err := p.svc.Sessions.Check(ctx, secret)
			if err != nil {
				return auth.Principal{}, err
			}
			if sess.ID != first.SessionID {
				return auth.Principal{}, errors.New("another session")
			}
			return p.svc.Tenants.Principal(ctx, sess.Identity)
		}
		return s.Stream(c, recheck, time.Time{})
	})
}
