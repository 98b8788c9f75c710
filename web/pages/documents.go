package pages

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// documentPage is one document of a driver: status, upload form and
// version history, each shown only to roles that may use it.
func (p *Pages) documentPage(c echo.Context) error {
	return p.holderDocumentPage(c, documents.HolderDriver)
}

// holderDocumentPage is one document of a driver, a vehicle or a trailer
// (holderType), as documentPage.
func (p *Pages) holderDocumentPage(c echo.Context, holderType string) error {
	d, err := p.documentData(c, holderType, web.PathID(c, "id"), web.PathID(c, "document_id"))
	if err != nil {
		return err
	}
	return p.renderTitled(c, http.StatusOK, views.DocType(c.Request().Context(), d.Document.Type), views.DocumentPage(d))
}

// documentSheet loads a holder's document through the documents service:
// a driver's with Sheet, a vehicle's or a trailer's with FleetSheet.
func (p *Pages) documentSheet(ctx context.Context, pr auth.Principal, holderType string, holderID, documentID uuid.UUID) (*documents.Sheet, error) {
	if holderType == documents.HolderDriver {
		return p.svc.Documents.Sheet(ctx, pr, holderID, documentID)
	}
	return p.svc.Documents.FleetSheet(ctx, pr, holderType, holderID, documentID)
}

// documentData loads what the document page shows through the documents
// service: the holder, the document, its versions.
func (p *Pages) documentData(c echo.Context, holderType string, holderID, documentID uuid.UUID) (views.DocumentPageData, error) {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	sh, err := p.documentSheet(ctx, pr, holderType, holderID, documentID)
	if err != nil {
		return views.DocumentPageData{}, err
	}
	d := views.DocumentPageData{
		Holder:       views.DriverRef{URL: holderURL(sh.HolderType, sh.HolderID), Name: sh.HolderName, Number: sh.HolderNumber},
		List:         views.ListRef{URL: holdersURL(sh.HolderType), Title: "drivers.title"},
		Self:         sh.HolderType == documents.HolderDriver && pr.DriverID != nil && *pr.DriverID == sh.HolderID,
		CanUpload:    sh.CanUpload,
		ShowVersions: sh.ShowVersions,
		Document:     documentCard(lang, sh.HolderType, sh.HolderID, sh.Document),
	}
	if sh.HolderType != documents.HolderDriver {
		d.List.Title = views.FleetTitleKey(sh.HolderType)
	}
	if sh.ShowVersions {
		d.Document.Versions = len(sh.Versions)
	}
	renewal := false // a current file: the upload is a new version of it
	for _, v := range sh.Versions {
		who := lang.T("history.unknown")
		if v.UploadedBy != nil {
			who = *v.UploadedBy
		}
		d.Versions = append(d.Versions, views.VersionRow{
			Version: v.Version, Current: v.IsCurrent, Filename: v.OriginalFilename, MimeType: v.MimeType,
			Size: formatSize(lang, v.SizeBytes), UploadedBy: who, UploadedAt: lang.DateTime(v.UploadedAt, pr.Location()),
			DownloadURL: "/files/" + v.ID.String() + "/download", ReviewStatus: v.ReviewStatus, ReviewReason: deref(v.ReviewReason),
			Number: deref(v.Number), ValidFrom: formatDate(lang, v.ValidFrom), ValidUntil: formatDate(lang, v.ValidUntil),
		})
		renewal = renewal || v.IsCurrent
	}
	// The newest version waiting or refused is said above the form,
	// where the driver uploads again.
	if len(d.Versions) > 0 && d.Versions[0].ReviewStatus != documents.ReviewApproved {
		d.Review = &d.Versions[0]
	}
	max := p.svc.Documents.MaxBytes()
	d.Upload = views.UploadForm{
		Action: d.Document.URL, CSRF: csrfToken(c), MaxBytes: max, MaxSize: formatSize(lang, max), Reviewed: sh.Reviewed,
		Renewal: renewal,
	}
	return d, nil
}

// uploadDocument stores a new version through the documents service,
// streaming the multipart body as the API does (never parsed into memory).
// Problems with the file or the fields come back in the upload form;
// static/upload.js (an htmx-style request) gets the document panel, a
// plain form post the whole page, or after success a redirect.
func (p *Pages) uploadDocument(c echo.Context) error {
	return p.uploadHolderDocument(c, documents.HolderDriver)
}

// uploadHolderDocument is uploadDocument on the page of a driver's, a
// vehicle's or a trailer's document (holderType).
func (p *Pages) uploadHolderDocument(c echo.Context, holderType string) error {
	req := c.Request()
	ctx := req.Context()
	lang := i18n.From(ctx)
	holderID, documentID := web.PathID(c, "id"), web.PathID(c, "document_id")
	body := func() (*multipart.Reader, error) { return web.UploadBody(c, p.svc.Documents.MaxBytes()) }
	var f *documents.File
	var err error
	if holderType == documents.HolderDriver {
		f, err = p.svc.Documents.Upload(ctx, web.Principal(c), holderID, documentID, body)
	} else {
		f, err = p.svc.Documents.UploadFleet(ctx, web.Principal(c), holderType, holderID, documentID, body)
	}
	if err == nil {
		return p.uploaded(c, holderType, holderID, documentID, f)
	}
	r, ok := refusalOf(lang, err, p.svc.Documents.MaxBytes())
	if !ok {
		return err
	}
	// Read what the browser still sends (bounded by the cap), so it gets
	// the answer rather than a reset connection.
	_, _ = io.Copy(io.Discard, req.Body)
	d, derr := p.documentData(c, holderType, holderID, documentID)
	if derr != nil {
		return derr
	}
	d.Upload.Errors = r.fields
	return p.documentAnswer(c, r.status, d)
}

// uploaded answers a stored upload: a redirect after a plain form post,
// the document panel with a notice for static/upload.js. A version that
// waits for review says so.
func (p *Pages) uploaded(c echo.Context, holderType string, holderID, documentID uuid.UUID, f *documents.File) error {
	notice, version := "upload.done", f.Version
	if f.Review.Status == documents.ReviewPending {
		notice = "upload.pending"
	}
	if !isHTMX(c) {
		p.flash(c, views.FlashSuccess, notice, "version", strconv.Itoa(version))
		return p.redirect(c, holderDocumentURL(holderType, holderID, documentID))
	}
	d, err := p.documentData(c, holderType, holderID, documentID)
	if err != nil {
		return err
	}
	d.Notice = i18n.From(c.Request().Context()).T(notice, "version", strconv.Itoa(version))
	return p.documentAnswer(c, http.StatusOK, d)
}

func (p *Pages) documentAnswer(c echo.Context, status int, d views.DocumentPageData) error {
	if isHTMX(c) {
		return p.fragment(c, status, views.DocumentPanel(d))
	}
	return p.renderTitled(c, status, views.DocType(c.Request().Context(), d.Document.Type), views.DocumentPage(d))
}

// downloadFile sends a file version with the API's download headers
// (web.ServeDownload); the documents service decides who may have it.
func (p *Pages) downloadFile(c echo.Context) error {
	d, err := p.svc.Documents.Open(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
