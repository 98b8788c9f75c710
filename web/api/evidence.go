package api

import (
	"mime/multipart"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/web"
)

// Penalty evidence files: paths by the penalty's id alone; the finance
// service finds the penalty's driver and checks as for the driver's penalty
// paths.
func (h *Handlers) mountEvidence(g *web.Routes) {
	g.POST("/penalties/:penalty_id/evidence", h.addEvidence)
	g.GET("/penalties/:penalty_id/evidence", h.listEvidence)
	g.GET("/penalties/:penalty_id/evidence/:file_id", h.downloadEvidence)
}

// addEvidence streams the multipart body into the service, as a document
// upload does (web.UploadBody: capped, never parsed into memory), once the
// service has checked the penalty.
func (h *Handlers) addEvidence(c echo.Context) error {
	f, err := h.Finance.AddEvidence(c.Request().Context(), web.Principal(c), web.PathID(c, "penalty_id"), func() (*multipart.Reader, error) {
		return web.UploadBody(c, h.Finance.MaxUploadBytes())
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, f)
}

func (h *Handlers) listEvidence(c echo.Context) error {
	files, err := h.Finance.ListEvidence(c.Request().Context(), web.Principal(c), web.PathID(c, "penalty_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": files})
}

// downloadEvidence serves an evidence file like a document file
// (web.ServeDownload).
func (h *Handlers) downloadEvidence(c echo.Context) error {
	d, err := h.Finance.OpenEvidence(c.Request().Context(), web.Principal(c), web.PathID(c, "penalty_id"), web.PathID(c, "file_id"))
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
