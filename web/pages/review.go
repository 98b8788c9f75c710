package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The review queue (docs/drivers-and-documents.md, "Review of drivers'
// uploads"): HR sees the versions drivers uploaded that wait for review,
// oldest first, each with the file shown inline, and approves or rejects
// them through the same service method as the API.

// reviewQueueLimit is how many waiting versions the queue shows at once
// (each with its image); the page says how many wait in all.
const reviewQueueLimit = 20

// reviewQueueURL is the review queue, which the daily e-mails link too.
const reviewQueueURL = alerts.ReviewQueuePath

func (p *Pages) mountReview(r *web.Routes) {
	p.addCountedNav(views.NavItem{Href: reviewQueueURL, Label: "review.nav", Icon: "check", Description: "review.nav.about"},
		auth.DocumentsReview, p.pendingReviews)
	r.GET(reviewQueueURL, p.reviewQueue)
	r.POST(reviewQueueURL+"/:file_id", p.reviewFile)
	r.GET("/files/:id/view", p.viewFile)
}

// pendingReviews counts the versions waiting (the navigation's badge and
// the dashboard's card).
func (p *Pages) pendingReviews(ctx context.Context, pr auth.Principal) (int, error) {
	return p.svc.Documents.PendingCount(ctx, pr)
}

func (p *Pages) reviewQueue(c echo.Context) error {
	d, err := p.reviewData(c, nil)
	if err != nil {
		return err
	}
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == views.ReviewListID {
		// An upload or a decision elsewhere (static/live.js): the list alone.
		return p.fragment(c, http.StatusOK, views.ReviewList(d))
	}
	return p.render(c, http.StatusOK, "review.title", views.ReviewPage(d))
}

// reviewRefusal is a refused decision to show at its version.
type reviewRefusal struct {
	fileID uuid.UUID
	token  string
	reason string
	errs   map[string][]string
}

// reviewData loads the queue; refusal, when given, is shown at its
// version with what was typed.
func (p *Pages) reviewData(c echo.Context, refusal *reviewRefusal) (views.ReviewPageData, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	pending, total, err := p.svc.Documents.PendingReviews(ctx, pr, reviewQueueLimit)
	if err != nil {
		return views.ReviewPageData{}, err
	}
	d := views.ReviewPageData{Total: total, CSRF: csrfToken(c), URL: reviewQueueURL}
	for _, r := range pending {
		it := reviewItem(lang, pr, r)
		if refusal != nil && refusal.fileID == r.FileID {
			it.Token, it.Reason, it.Errors = refusal.token, refusal.reason, refusal.errs
		}
		d.Items = append(d.Items, it)
	}
	return d, nil
}

func reviewItem(lang i18n.Lang, pr auth.Principal, r documents.PendingReview) views.ReviewItem {
	driver := driverURL(r.DriverID)
	it := views.ReviewItem{
		FileID: r.FileID.String(), Version: r.Version, DocumentType: r.DocumentType,
		DocumentURL: driver + "/documents/" + r.DocumentID.String(),
		DriverName:  r.DriverName, DriverNumber: r.DriverNumber, DriverURL: driver,
		Filename: r.OriginalFilename, Uploaded: lang.DateTime(r.UploadedAt, pr.Location()), UploadedBy: r.UploadedBy,
		ViewURL:     "/files/" + r.FileID.String() + "/view",
		DownloadURL: "/files/" + r.FileID.String() + "/download",
		Image:       r.MimeType == "image/jpeg" || r.MimeType == "image/png" || r.MimeType == "image/webp",
		PDF:         r.MimeType == "application/pdf",
		Action:      reviewQueueURL + "/" + r.FileID.String(),
		Token:       forms.NewToken(),
	}
	text := func(s *string) string {
		if s == nil {
			return "—"
		}
		return *s
	}
	date := func(d *civil.Date) string {
		if d == nil {
			return "—"
		}
		return lang.Date(*d)
	}
	country := func(s *string) string {
		if s == nil {
			return "—"
		}
		return countryName(lang, *s)
	}
	row := func(label, now, after string) views.ReviewRow {
		return views.ReviewRow{Label: label, Now: now, After: after, Changed: now != after}
	}
	it.Rows = []views.ReviewRow{
		{Label: "doc.status", Now: r.Current.Status, After: r.Proposed.Status, Changed: r.Current.Status != r.Proposed.Status, Status: true},
		row("doc.number", text(r.Current.Number), text(r.Proposed.Number)),
		row("doc.valid_from", date(r.Current.ValidFrom), date(r.Proposed.ValidFrom)),
		row("doc.valid_until", date(r.Current.ValidUntil), date(r.Proposed.ValidUntil)),
		row("doc.country", country(r.Current.Country), country(r.Proposed.Country)),
	}
	return it
}

// errDecided is the answer of a review form whose token found an earlier
// submission of it.
var errDecided = errors.New("review form submitted before")

// reviewFile approves or rejects a version from the queue's forms. The
// form's one-time token makes a second submission (a double click, a
// reload, the other button of the same version, another tab) find the
// first one's answer rather than a second decision. The form is read, and
// its token claimed, once the service has loaded and checked the version.
func (p *Pages) reviewFile(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	fileID := web.PathID(c, "file_id")
	var (
		form     url.Values
		sent     documents.ReviewInput
		claim    forms.Claim
		claimErr error
	)
	decided, err := p.svc.Documents.ReviewFile(ctx, pr, uuid.Nil, fileID, func(in *documents.ReviewInput) error {
		f, err := c.FormParams()
		if err != nil {
			return apperr.BadRequest("msg.common.form_unreadable")
		}
		form = f
		sent = documents.ReviewInput{Decision: form.Get("decision"), Reason: form.Get("reason")}
		*in = sent
		if claim, claimErr = p.svc.Forms.Claim(ctx, pr, form.Get("form_token")); claimErr != nil {
			return claimErr
		}
		if !claim.Fresh {
			return errDecided
		}
		return nil
	})
	refuse := func(err error) error {
		r, ok := refusalOf(lang, err, noFile)
		if !ok {
			return err
		}
		// The decision is the form's buttons: its message is the form's.
		r.fields[""] = append(r.fields[""], r.fields["decision"]...)
		d, derr := p.reviewData(c, &reviewRefusal{fileID: fileID, token: form.Get("form_token"), reason: sent.Reason, errs: r.fields})
		if derr != nil {
			return derr
		}
		return p.render(c, r.status, "review.title", views.ReviewPage(d))
	}
	switch {
	case errors.Is(err, errDecided):
		p.flash(c, views.FlashInfo, "review.decided")
		return p.redirect(c, claim.Done)
	case claimErr != nil:
		return refuse(claimErr)
	case err != nil && form == nil:
		return err // refused before the form was read, or the form is unreadable
	case err != nil:
		if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
			return rerr
		}
		if apperr.KindOf(err) == apperr.KindConflict {
			// Decided meanwhile (another tab, a colleague).
			p.flash(c, views.FlashInfo, "review.decided")
			return p.redirect(c, reviewQueueURL)
		}
		return refuse(err)
	}
	if err := p.svc.Forms.Finish(ctx, pr, claim, reviewQueueURL); err != nil {
		return err
	}
	key := "review.approved_flash"
	if decided.File.Review.Status == documents.ReviewRejected {
		key = "review.rejected_flash"
	}
	p.flash(c, views.FlashSuccess, key, "type", views.DocType(ctx, decided.DocumentType), "driver", strings.TrimSpace(decided.DriverName))
	return p.redirect(c, reviewQueueURL)
}

// viewFile shows a file version inline (the review queue's image or PDF),
// to those who may download it.
func (p *Pages) viewFile(c echo.Context) error {
	d, err := p.svc.Documents.Open(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	defer d.Close()
	web.ServeInline(c, d)
	return nil
}
