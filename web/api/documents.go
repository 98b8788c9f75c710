package api

import (
	"encoding/json"
	"mime/multipart"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountDocuments(g *web.Routes) {
	g.GET("/drivers/:driver_id/documents", h.listDocuments)
	g.GET("/vehicles/:vehicle_id/documents", h.listFleetDocuments(documents.HolderVehicle, "vehicle_id"))
	g.GET("/trailers/:trailer_id/documents", h.listFleetDocuments(documents.HolderTrailer, "trailer_id"))
	g.GET("/documents", h.documentsByExpiry)
	g.PUT("/documents/:document_id", h.updateDocument)
	g.POST("/documents/:document_id/files", h.uploadDocumentFile)
	g.GET("/documents/:document_id/files/versions", h.listDocumentVersions)
	g.POST("/documents/:document_id/files/:file_id/review", h.reviewDocumentFile)
	g.GET("/files/:file_id/download", h.downloadFile)
}

func (h *Handlers) listDocuments(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "driver_id")
	q := query{c: c}
	fp := feedParams(&q)
	if perr := q.err(); perr != nil || fp.On() {
		// The driver's 403 and 404 come before a parameter's 400.
		page, err := h.Documents.Feed(ctx, p, id, func(in *feed.Params) error { *in = fp; return perr })
		if err != nil {
			return err
		}
		return writeList(c, page)
	}
	docs, err := h.Documents.Read(ctx, p, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": docs})
}

// listFleetDocuments lists a vehicle's or a trailer's documents
// (docs/fleet.md, "Documents of vehicles and trailers").
func (h *Handlers) listFleetDocuments(holderType string, param string) echo.HandlerFunc {
	return func(c echo.Context) error {
		docs, err := h.Documents.FleetRead(c.Request().Context(), web.Principal(c), holderType, web.PathID(c, param))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": docs})
	}
}

// documentsByExpiry lists the company's documents, one row each, by
// expiry (docs/drivers-and-documents.md, "Documents by expiry"); with
// format, every row of the filter as CSV or XLSX.
func (h *Handlers) documentsByExpiry(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	q := query{c: c}
	ep := expiryFilter(&q)
	if _, ok := c.QueryParams()["format"]; ok {
		format, ferr := export.FormatParam(q.str("format"))
		lang := callerLang(c, p)
		return web.Export(c, format, "documents-"+p.Today().String(), lang.T("expiring.sheet"), func(start func() (export.Writer, error)) error {
			return h.Documents.ExportExpiring(ctx, p, func(in *documents.ExpiryParams) error {
				if err := q.err(); err != nil {
					return err
				}
				if ferr != nil {
					return ferr
				}
				*in = ep
				return nil
			}, lang, start)
		})
	}
	ep.Page = q.pageRequest(offsetSize)
	res, err := h.Documents.Expiring(ctx, p, func(in *documents.ExpiryParams) error {
		*in = ep
		return q.err()
	})
	if err != nil {
		return err
	}
	if !res.NumbersShown {
		return writeList(c, paging.Map(res.Page, documents.ExpiryItem.StatusOnly))
	}
	return writeList(c, res.Page)
}

// expiryFilter reads the documents list's filters and sort.
func expiryFilter(q *query) documents.ExpiryParams {
	ep := documents.ExpiryParams{
		ExpiringWithin: q.optInt("expiring_within"),
		Status:         q.list("status"),
		Type:           q.list("type"),
		HolderType:     q.list("holder_type"),
		OfficeIDs:      q.uuids("office_id"),
		SortBy:         q.str("sort_by"),
		SortOrder:      q.str("sort_order"),
	}
	if b := q.optBool("include_inactive"); b != nil {
		ep.IncludeInactive = *b
	}
	return ep
}

func (h *Handlers) updateDocument(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	doc, err := h.Documents.Update(ctx, p, web.PathID(c, "document_id"), func(body *map[string]json.RawMessage) error {
		return web.Bind(c, body)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

// uploadDocumentFile streams the multipart body into the service; it is
// never parsed into memory (no ParseMultipartForm), and the whole body is
// capped so that oversized metadata parts cannot exhaust memory either.
func (h *Handlers) uploadDocumentFile(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	f, err := h.Documents.Upload(ctx, p, uuid.Nil, web.PathID(c, "document_id"), func() (*multipart.Reader, error) {
		return web.UploadBody(c, h.Documents.MaxBytes())
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, f)
}

// reviewDocumentFile approves or rejects a version waiting for review
// (docs/drivers-and-documents.md, "Review of drivers' uploads").
func (h *Handlers) reviewDocumentFile(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	d, err := h.Documents.ReviewFile(ctx, p, web.PathID(c, "document_id"), web.PathID(c, "file_id"), func(in *documents.ReviewInput) error {
		return web.Bind(c, in)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d.File)
}

func (h *Handlers) listDocumentVersions(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	versions, err := h.Documents.Versions(ctx, p, web.PathID(c, "document_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": versions})
}

// downloadFile serves a stored file (web.ServeDownload: Range, If-Range and
// If-None-Match against the SHA-256 ETag).
func (h *Handlers) downloadFile(c echo.Context) error {
	d, err := h.Documents.Open(c.Request().Context(), web.Principal(c), web.PathID(c, "file_id"))
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
