package pages

import (
	"io"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// documentPage is one document of a driver: status, upload form and
// version history, each shown only to roles that may use it.
func (p *Pages) documentPage(c echo.Context) error {
	d, err := p.documentData(c, web.PathID(c, "id"), web.PathID(c, "document_id"))
	if err != nil {
		return err
	}
	return p.renderTitled(c, http.StatusOK, views.DocType(c.Request().Context(), d.Document.Type), views.DocumentPage(d))
}

// documentData loads what the document page shows, through the same
// services as the API: the driver with its documents, and the versions.
func (p *Pages) documentData(c echo.Context, driverID, documentID uuid.UUID) (views.DocumentPageData, error) {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	// A role that may read the driver but not its documents (the
	// accountant) is refused here (403).
	drv, err := p.svc.Drivers.Get(ctx, pr, auth.DocumentsList, driverID)
	if err != nil {
		return views.DocumentPageData{}, err
	}
	d := views.DocumentPageData{
		Driver:       views.DriverRef{URL: driverURL(drv.ID), Name: fullName(drv), Number: drv.InternalNumber},
		Self:         pr.DriverID != nil && *pr.DriverID == drv.ID,
		CanUpload:    pr.Grant(auth.DocumentsWrite) != auth.Deny,
		ShowVersions: pr.Grant(auth.FilesRead) != auth.Deny,
	}
	found, reviewed := false, false
	for _, doc := range drv.Documents {
		if doc.ID == documentID {
			d.Document, found = documentCard(lang, drv.ID, doc), true
		}
	}
	if !found {
		return d, apperr.NotFound("msg.common.not_found.document")
	}
	if d.ShowVersions {
		ref, err := p.svc.Documents.Authorize(ctx, pr, auth.FilesRead, documentID)
		if err != nil {
			return d, err
		}
		versions, err := p.svc.Documents.Versions(ctx, pr, ref)
		if err != nil {
			return d, err
		}
		// Who may upload may read the versions: the same Ref serves.
		if d.CanUpload {
			if reviewed, err = p.svc.Documents.ChangesNeedReview(ctx, pr, ref); err != nil {
				return d, err
			}
		}
		for _, v := range versions {
			who := lang.T("history.unknown")
			if v.UploadedBy != nil {
				who = *v.UploadedBy
			}
			d.Versions = append(d.Versions, views.VersionRow{
				Version: v.Version, Current: v.IsCurrent, Filename: v.OriginalFilename, MimeType: v.MimeType,
				Size: formatSize(lang, v.SizeBytes), UploadedBy: who, UploadedAt: lang.DateTime(v.UploadedAt, pr.Location()),
				DownloadURL: "/files/" + v.ID.String() + "/download", ReviewStatus: v.ReviewStatus, ReviewReason: deref(v.ReviewReason),
			})
		}
		// The newest version waiting or refused is said above the form,
		// where the driver uploads again.
		if len(d.Versions) > 0 && d.Versions[0].ReviewStatus != documents.ReviewApproved {
			d.Review = &d.Versions[0]
		}
	}
	max := p.svc.Documents.MaxBytes()
	d.Upload = views.UploadForm{
		Action: d.Document.URL, CSRF: csrfToken(c), MaxBytes: max, MaxSize: formatSize(lang, max), Reviewed: reviewed,
	}
	return d, nil
}

// uploadDocument stores a new version through the documents service,
// streaming the multipart body as the API does (never parsed into memory).
// Problems with the file or the fields come back in the upload form;
// static/upload.js (an htmx-style request) gets the document panel, a
// plain form post the whole page, or after success a redirect.
func (p *Pages) uploadDocument(c echo.Context) error {
	pr := web.Principal(c)
	req := c.Request()
	ctx := req.Context()
	lang := i18n.From(ctx)
	driverID, documentID := web.PathID(c, "id"), web.PathID(c, "document_id")

	ref, err := p.svc.Documents.Authorize(ctx, pr, auth.DocumentsWrite, documentID)
	if err != nil {
		return err
	}
	if ref.DriverID() != driverID {
		return apperr.NotFound("msg.common.not_found.document") // a document of another driver than the page's
	}
	f, err := p.upload(c, ref)
	if err == nil {
		return p.uploaded(c, driverID, documentID, f)
	}
	errs, ok := uploadErrors(lang, err, formatSize(lang, p.svc.Documents.MaxBytes()))
	if !ok {
		return err
	}
	// Read what the browser still sends (bounded by the cap), so it gets
	// the answer rather than a reset connection.
	_, _ = io.Copy(io.Discard, req.Body)
	d, derr := p.documentData(c, driverID, documentID)
	if derr != nil {
		return derr
	}
	d.Upload.Errors = errs
	status, _, _ := web.ToBody(err, "")
	return p.documentAnswer(c, status, d)
}

// upload opens the capped multipart body and stores it as a new version.
func (p *Pages) upload(c echo.Context, ref documents.Ref) (*documents.File, error) {
	mr, err := web.UploadBody(c, p.svc.Documents.MaxBytes())
	if err != nil {
		return nil, err
	}
	return p.svc.Documents.Upload(c.Request().Context(), web.Principal(c), ref, mr)
}

// uploaded answers a stored upload: a redirect after a plain form post,
// the document panel with a notice for static/upload.js. A version that
// waits for review says so.
func (p *Pages) uploaded(c echo.Context, driverID, documentID uuid.UUID, f *documents.File) error {
	notice, version := "upload.done", f.Version
	if f.Review.Status == documents.ReviewPending {
		notice = "upload.pending"
	}
	if !isHTMX(c) {
		p.flash(c, views.FlashSuccess, notice, "version", strconv.Itoa(version))
		return p.redirect(c, driverURL(driverID)+"/documents/"+documentID.String())
	}
	d, err := p.documentData(c, driverID, documentID)
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

// uploadErrors turns a refused upload into messages for the form: field
// messages at their fields, a wrong type or a too large file at the file.
func uploadErrors(lang i18n.Lang, err error, maxSize string) (map[string][]string, bool) {
	switch apperr.KindOf(err) {
	case apperr.KindValidation:
		return translatedFields(lang, err), true
	case apperr.KindPayloadTooLarge:
		return map[string][]string{"file": {lang.T("upload.too_large", "size", maxSize)}}, true
	case apperr.KindUnsupportedMediaType:
		return map[string][]string{"file": {lang.T("upload.unsupported")}}, true
	case apperr.KindBadRequest:
		msg, _ := messagesIn(lang, err)
		if msg == "" {
			msg = lang.T("upload.failed")
		}
		return map[string][]string{"": {msg}}, true
	}
	return nil, false
}

// downloadFile sends a file version with the API's download headers
// (web.ServeDownload); the documents service decides who may have it.
func (p *Pages) downloadFile(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	ref, err := p.svc.Documents.AuthorizeFile(ctx, pr, auth.FilesRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d, err := p.svc.Documents.Open(ctx, pr, ref)
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeDownload(c, d)
	return nil
}
