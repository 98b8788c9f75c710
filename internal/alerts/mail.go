package alerts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/wneessen/go-mail"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Email is an e-mail as the outbox holds it.
type Email struct {
	ID        uuid.UUID
	Kind      string // digest, driver_alert
	Recipient string
	Language  i18n.Lang
	Subject   string
	Text      string
	HTML      string
}

// The outbox kinds of the scan's e-mails.
const (
	MailDigest = "digest"       // the daily digest of an admin or HR manager
	MailDriver = "driver_alert" // a driver's own documents
)

// line is one row of an e-mail's table.
type line struct {
	Driver, Document, Stage, ValidUntil, Link string
}

func lines(base string, l i18n.Lang, types documents.TypeNames, alerts []Alert, withDriver bool) []line {
	out := make([]line, 0, len(alerts))
	for _, a := range alerts {
		ln := line{Document: types.Name(l, a.DocumentType), Stage: l.T("alert.stage." + a.Stage),
			Link: alertLink(base, a)}
		if withDriver {
			ln.Driver = a.InternalNumber + " " + a.DriverName
		}
		if a.ValidUntil != nil {
			ln.ValidUntil = l.Date(*a.ValidUntil)
		}
		out = append(out, ln)
	}
	return out
}

// alertLink is where an alert's document is seen: a driver's document's
// page, a vehicle's or a trailer's page.
func alertLink(base string, a Alert) string {
	if a.HolderType == "vehicle" || a.HolderType == "trailer" {
		return strings.TrimRight(base, "/") + "/" + a.HolderType + "s/" + url.PathEscape(a.HolderID.String())
	}
	return documentLink(base, a.DriverID, a.DocumentID)
}

// documentLink is the document's page, where HR sees it and a driver
// uploads the renewal (from the phone: the page takes a photo).
func documentLink(base string, driver, document uuid.UUID) string {
	return strings.TrimRight(base, "/") + "/drivers/" + url.PathEscape(driver.String()) + "/documents/" + url.PathEscape(document.String())
}

// digestMail is an admin's or HR manager's daily digest: the day's
// document alerts, then what calls for the recipient since the previous
// digest (uploads waiting for review, disputes filed).
func digestMail(base string, co company, date civil.Date, r recipient, alerts []Alert, calls []Call) Email {
	l := r.Language
	m := mailBody{
		Lang:     string(l),
		Title:    l.T("mail.digest.subject", "company", co.Name, "date", l.Date(date), "count", strconv.Itoa(len(alerts))),
		Open:     l.T("mail.open"),
		Footer:   l.T("mail.footer"),
		Settings: strings.TrimRight(base, "/") + "/notifications",
	}
	if len(alerts) == 0 {
		m.Title = l.T("mail.digest.subject_calls", "company", co.Name, "date", l.Date(date))
	} else {
		m.Intro = l.T("mail.digest.intro", "company", co.Name, "date", l.Date(date))
		m.Headers = []string{l.T("mail.col.driver"), l.T("mail.col.document"), l.T("mail.col.stage"), l.T("mail.col.valid_until")}
		m.Lines = lines(base, l, co.Types, alerts, true)
	}
	if len(calls) > 0 {
		m.CallsIntro = l.T("mail.digest.calls_intro")
		m.CallHeaders = []string{l.T("mail.col.driver"), l.T("mail.col.about"), l.T("mail.col.stage"), l.T("mail.col.details")}
		m.Calls = callLines(base, l, co, calls, true)
	}
	return m.email(MailDigest, r)
}

// driverMail is a driver's e-mail about its own documents, and its calls
// since the previous one (an upload rejected, a dispute decided).
func driverMail(base string, co company, r recipient, alerts []Alert, calls []Call) Email {
	l := r.Language
	name := ""
	if len(alerts) > 0 {
		name = alerts[0].DriverName
	} else if len(calls) > 0 {
		name = calls[0].DriverName
	}
	m := mailBody{
		Lang:     string(l),
		Title:    l.T("mail.driver.subject", "company", co.Name),
		Open:     l.T("mail.driver.upload"),
		Footer:   l.T("mail.footer"),
		Settings: strings.TrimRight(base, "/") + "/notifications",
	}
	if len(alerts) == 0 {
		m.Title = l.T("mail.driver.subject_calls", "company", co.Name)
	} else {
		m.Intro = l.T("mail.driver.intro", "name", name, "company", co.Name)
		m.Headers = []string{l.T("mail.col.document"), l.T("mail.col.stage"), l.T("mail.col.valid_until")}
		m.Lines = lines(base, l, co.Types, alerts, false)
	}
	if len(calls) > 0 {
		m.CallsIntro = l.T("mail.driver.calls_intro")
		m.CallHeaders = []string{l.T("mail.col.about"), l.T("mail.col.stage"), l.T("mail.col.details")}
		m.Calls = callLines(base, l, co, calls, false)
		m.CallsOpen = l.T("mail.open")
	}
	return m.email(MailDriver, r)
}

// mailBody is what the plain text and HTML parts say: a table of lines
// (Intro, Headers, Lines; none when Intro is empty) and one of calls to act
// (CallsIntro, CallHeaders, Calls), each line with a link (Open, or
// CallsOpen when set, for the calls).
type mailBody struct {
	Lang, Title, Intro string
	Headers            []string
	Lines              []line
	CallsIntro         string
	CallHeaders        []string
	Calls              []line
	Open, CallsOpen    string
	Footer             string
	Settings           string
}

// callsOpen is the link text of the calls' lines.
func (m mailBody) callsOpen() string {
	if m.CallsOpen != "" {
		return m.CallsOpen
	}
	return m.Open
}

var htmlMail = template.Must(template.New("mail").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; color: #111827">
{{if .Intro}}<p>{{.Intro}}</p>
<table cellpadding="6" style="border-collapse: collapse">
<thead><tr>{{range .Headers}}<th align="left" style="border-bottom: 1px solid #d1d5db">{{.}}</th>{{end}}<th></th></tr></thead>
<tbody>{{$open := .Open}}{{range .Lines}}<tr>{{if .Driver}}<td>{{.Driver}}</td>{{end}}<td>{{.Document}}</td><td>{{.Stage}}</td><td>{{.ValidUntil}}</td><td><a href="{{.Link}}">{{$open}}</a></td></tr>
{{end}}</tbody>
</table>
{{end}}{{if .Calls}}<p>{{.CallsIntro}}</p>
<table cellpadding="6" style="border-collapse: collapse">
<thead><tr>{{range .CallHeaders}}<th align="left" style="border-bottom: 1px solid #d1d5db">{{.}}</th>{{end}}<th></th></tr></thead>
<tbody>{{$open := .CallsOpenText}}{{range .Calls}}<tr>{{if .Driver}}<td>{{.Driver}}</td>{{end}}<td>{{.Document}}</td><td>{{.Stage}}</td><td>{{.ValidUntil}}</td><td><a href="{{.Link}}">{{$open}}</a></td></tr>
{{end}}</tbody>
</table>
{{end}}<p style="color: #4b5563; font-size: 12px">{{.Footer}} <a href="{{.Settings}}">{{.Settings}}</a></p>
</body></html>
`))

func (m mailBody) email(kind string, r recipient) Email {
	var text strings.Builder
	table := func(intro string, list []line, open string) {
		text.WriteString(intro + "\n\n")
		for _, ln := range list {
			parts := []string{}
			if ln.Driver != "" {
				parts = append(parts, ln.Driver)
			}
			parts = append(parts, ln.Document, ln.Stage)
			if ln.ValidUntil != "" {
				parts = append(parts, ln.ValidUntil)
			}
			text.WriteString("- " + strings.Join(parts, " | ") + "\n  " + open + ": " + ln.Link + "\n")
		}
	}
	if m.Intro != "" {
		table(m.Intro, m.Lines, m.Open)
	}
	if len(m.Calls) > 0 {
		if m.Intro != "" {
			text.WriteString("\n")
		}
		table(m.CallsIntro, m.Calls, m.callsOpen())
	}
	text.WriteString("\n-- \n" + m.Footer + " " + m.Settings + "\n")
	var html bytes.Buffer
	if err := htmlMail.Execute(&html, struct {
		mailBody
		CallsOpenText string
	}{m, m.callsOpen()}); err != nil {
		panic(fmt.Sprintf("mail template: %v", err)) // a fixed template over strings cannot fail
	}
	return Email{Kind: kind, Recipient: r.Email, Language: r.Language, Subject: m.Title, Text: text.String(), HTML: html.String()}
}

// writeOutbox stores the e-mails in the outbox in one statement, on the
// transaction of their cause, under ids it gives them.
func writeOutbox(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, mails []Email) error {
	if len(mails) == 0 {
		return nil
	}
	cols := make([][]string, 6)
	ids := make([]uuid.UUID, len(mails))
	for i, e := range mails {
		ids[i] = uuid.New()
		for i, v := range []string{e.Kind, e.Recipient, string(e.Language), e.Subject, e.Text, e.HTML} {
			cols[i] = append(cols[i], v)
		}
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO outbox (id, company_id, kind, recipient, language, subject, text_body, html_body)
		SELECT i, $1, k, r, l, s, t, h FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			AS x(i, k, r, l, s, t, h)`, companyID, ids, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
	if err != nil {
		return fmt.Errorf("write outbox: %w", err)
	}
	for i := range mails {
		mails[i].ID = ids[i]
	}
	return nil
}

// Mailer sends e-mail through SMTP_URL, or, without one, keeps it in the
// outbox and logs that it did (never the address or the content).
type Mailer struct {
	db     *pgxpool.Pool
	log    *slog.Logger
	client *mail.Client // nil: no SMTP_URL
	from   string
}

// NewMailer returns the mailer of SMTP_URL (smtp://user:pass@host:587 with
// STARTTLS, smtps:// for implicit TLS; smtp://host:port?tls=none for a
// server without TLS, development and tests only) and MAIL_FROM. An empty
// smtpURL makes a mailer that only logs.
func NewMailer(db *pgxpool.Pool, log *slog.Logger, smtpURL, from string) (*Mailer, error) {
	if log == nil {
		log = slog.Default()
	}
	m := &Mailer{db: db, log: log, from: from}
	if smtpURL == "" {
		return m, nil
	}
	u, err := url.Parse(smtpURL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, errors.New("SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://…")
	}
	opts := []mail.Option{mail.WithTimeout(20 * time.Second)}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, mail.WithSSL())
	} else if u.Query().Get("tls") == "none" {
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, errors.New("SMTP_URL has a bad port")
		}
	}
	opts = append(opts, mail.WithPort(port))
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
	}
	if m.client, err = mail.NewClient(u.Hostname(), opts...); err != nil {
		return nil, fmt.Errorf("SMTP client: %w", err)
	}
	return m, nil
}

// Configured reports whether the mailer sends (SMTP_URL is set).
func (m *Mailer) Configured() bool { return m.client != nil }

// Deliver sends one outbox e-mail unless it was sent already. The row is
// locked while sending, so two workers never send it both; it is marked
// sent in the same transaction once the server accepted it. A failure is
// counted on the row and returned (the job retries with backoff).
func (m *Mailer) Deliver(ctx context.Context, id uuid.UUID) error {
	if m.client == nil {
		m.log.InfoContext(ctx, "e-mail kept in the outbox (SMTP_URL not set)", slog.String("outbox_id", id.String()))
		return nil
	}
	var sendErr error
	err := postgres.InTx(ctx, m.db, func(tx pgx.Tx) error {
		var e Email
		var sent *time.Time
		var lang string
		err := tx.QueryRow(ctx, `SELECT kind, recipient, language, subject, text_body, html_body, sent_at FROM outbox WHERE id = $1 FOR UPDATE`, id).
			Scan(&e.Kind, &e.Recipient, &lang, &e.Subject, &e.Text, &e.HTML, &sent)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && sent != nil) {
			return nil // gone, or sent already
		}
		if err != nil {
			return fmt.Errorf("load outbox %s: %w", id, err)
		}
		if sendErr = m.send(ctx, e, lang); sendErr != nil {
			msg := sendErr.Error()
			if len(msg) > 500 {
				msg = msg[:500]
			}
			_, err = tx.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, id, msg)
		} else {
			_, err = tx.Exec(ctx, `UPDATE outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1`, id)
		}
		if err != nil {
			return fmt.Errorf("record delivery of outbox %s: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if sendErr != nil {
		// The cause (which may name the address) is on the row, not in
		// the error the job logs.
		return fmt.Errorf("send outbox %s: failed, see its last_error", id)
	}
	return nil
}

func (m *Mailer) send(ctx context.Context, e Email, lang string) error {
	msg := mail.NewMsg()
	if err := msg.From(m.from); err != nil {
		return fmt.Errorf("MAIL_FROM: %w", err)
	}
	if err := msg.To(e.Recipient); err != nil {
		return errors.New("invalid recipient address")
	}
	msg.Subject(e.Subject)
	msg.SetGenHeader(mail.HeaderContentLang, lang)
	msg.SetMessageID()
	msg.SetDate()
	msg.SetBodyString(mail.TypeTextPlain, e.Text)
	msg.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	return m.client.DialAndSendWithContext(ctx, msg)
}

// Unsent returns the ids of e-mails not sent yet, oldest first (the
// scheduler re-enqueues them, e.g. after SMTP_URL was set).
func Unsent(ctx context.Context, db *pgxpool.Pool, limit int) ([]uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY created_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("unsent e-mails: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

// Retention of the e-mail outbox (docs/alerts.md, "E-mail: the outbox"):
// the table would otherwise keep every e-mail ever written.
const (
	// KeepSentEmail is how long a sent e-mail stays, from its sending.
	KeepSentEmail = 30 * 24 * time.Hour
	// KeepUnsentEmail is how long an e-mail never sent stays (no SMTP_URL,
	// or refused every time), from its writing: an alert that old is no
	// longer worth sending.
	KeepUnsentEmail = 90 * 24 * time.Hour
)

// PruneOutbox removes, for every company, the e-mails sent more than
// KeepSentEmail ago and those never sent written more than
// KeepUnsentEmail ago. It runs on the system pool, from the periodic prune
// job.
func PruneOutbox(ctx context.Context, db postgres.DBTX, now time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM outbox
		WHERE (sent_at IS NOT NULL AND sent_at < $1) OR (sent_at IS NULL AND created_at < $2)`,
		now.Add(-KeepSentEmail), now.Add(-KeepUnsentEmail))
	if err != nil {
		return 0, fmt.Errorf("prune e-mail outbox: %w", err)
	}
	return tag.RowsAffected(), nil
}
