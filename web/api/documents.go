package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountDocuments(g *web.Routes) {
	g.GET("/drivers/:driver_id/documents", h.listDocuments)
	g.PUT("/documents/:document_id", h.updateDocument)
	g.POST("/documents/:document_id/files", h.uploadDocumentFile)
	g.GET("/documents/:document_id/files/versions", h.listDocumentVersions)
	g.GET("/files/:file_id/download", h.downloadFile)
}

func (h *Handlers) listDocuments(c echo.Context) error {
	id := anyID(c, "driver_id")
	docs, err := h.Documents.List(c.Request().Context(), web.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": docs})
}

func (h *Handlers) updateDocument(c echo.Context) error {
	id := anyID(c, "document_id")
	// The body is read by the service after its permission checks, so a
	// caller who may not write gets 403 even for a malformed body.
	readBody := func(v any) error { return bindJSON(c, v) }
	doc, err := h.Documents.Update(c.Request().Context(), web.Principal(c), id, readBody)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

// uploadDocumentFile streams the multipart body into the service; it is
// never parsed into memory (no ParseMultipartForm), and the whole body is
// capped so that oversized metadata parts cannot exhaust memory either.
func (h *Handlers) uploadDocumentFile(c echo.Context) error {
	id := anyID(c, "document_id")
	req := c.Request()
	web.CapUploadBody(c, h.Documents.MaxBytes())
	f, err := h.Documents.Upload(req.Context(), web.Principal(c), id, req.MultipartReader)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, f)
}

func (h *Handlers) listDocumentVersions(c echo.Context) error {
	id := anyID(c, "document_id")
	versions, err := h.Documents.Versions(c.Request().Context(), web.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": versions})
}

// downloadFile serves a stored file (web.ServeDownload: Range, If-Range and
// If-None-Match against the SHA-256 ETag).
func (h *Handlers) downloadFile(c echo.Context) error {
	id := anyID(c, "file_id")
	d, err := h.Documents.Open(c.Request().Context(), web.Principal(c), id)
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
