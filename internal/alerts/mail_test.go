package alerts_test

import (
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/konvoj/konvoj/internal/alerts"
)

// smtpServer is a real SMTP server in the test process that keeps what it
// receives; refuse makes it answer 451 (a temporary failure) to every
// recipient, like a server that is down for a while.
type smtpServer struct {
	mu       sync.Mutex
	received []received
	refuse   atomic.Bool
	addr     string
}

type received struct {
	from string
	to   []string
	data string
}

func startSMTP(t *testing.T) *smtpServer {
	t.Helper()
	s := &smtpServer{}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *smtpServer) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.received...)
}

type smtpSession struct {
	srv *smtpServer
	msg received
}

func (s *smtpSession) Reset()        { s.msg = received{} }
func (s *smtpSession) Logout() error { return nil }
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.msg.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.srv.refuse.Load() {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.msg.to = append(s.msg.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.msg.data = string(b)
	s.srv.mu.Lock()
	s.srv.received = append(s.srv.received, s.msg)
	s.srv.mu.Unlock()
	return nil
}

// parsed is a received e-mail, decoded.
type parsed struct {
	subject, language, text, html string
}

func parse(t *testing.T, data string) parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var p parsed
	dec := new(mime.WordDecoder)
	if p.subject, err = dec.DecodeHeader(m.Header.Get("Subject")); err != nil {
		t.Fatal(err)
	}
	p.language = m.Header.Get("Content-Language")
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = part
		switch strings.ToLower(part.Header.Get("Content-Transfer-Encoding")) {
		case "quoted-printable":
			r = quotedprintable.NewReader(part)
		case "base64":
			r = base64.NewDecoder(base64.StdEncoding, part)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			p.text = string(b)
		case "text/html":
			p.html = string(b)
		}
	}
	return p
}

// TestDeliveryThroughSMTP: the scan's e-mails go through a real SMTP
// server: a refusing server keeps them in the outbox (attempt counted, no
// address in the error), a recovered one gets each exactly once, and a
// repeated delivery sends nothing more.
func TestDeliveryThroughSMTP(t *testing.T) {
	st := newSetup(t)
	smtpd := startSMTP(t)
	mailer, err := alerts.NewMailer(st.db, slog.New(slog.NewTextHandler(io.Discard, nil)), "smtp://"+smtpd.addr+"?tls=none", "Konvoj <alerts@konvoj.example>")
	if err != nil {
		t.Fatal(err)
	}
	res := scan(t, st.s, st.f.Company, "2026-06-16")
	if len(res.Emails) != 3 {
		t.Fatalf("%d e-mails", len(res.Emails))
	}

	smtpd.refuse.Store(true)
	for _, e := range res.Emails {
		err := mailer.Deliver(ctx, e.ID)
		if err == nil {
			t.Fatal("a refused e-mail counted as delivered")
		}
		if strings.Contains(err.Error(), "@") {
			t.Errorf("the error names an address: %v", err)
		}
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox WHERE sent_at IS NULL AND attempts = 1 AND last_error <> ''`); n != 3 {
		t.Errorf("%d e-mails kept with their failed attempt, want 3", n)
	}

	smtpd.refuse.Store(false)
	for range 2 { // the retry, then a repeat (a restart re-enqueueing it)
		for _, e := range res.Emails {
			if err := mailer.Deliver(ctx, e.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	msgs := smtpd.messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages received, want 3", len(msgs))
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND attempts = 2`); n != 3 {
		t.Errorf("%d e-mails marked sent after 2 attempts, want 3", n)
	}
	by := map[string]parsed{}
	for _, m := range msgs {
		if len(m.to) != 1 || m.from != "alerts@konvoj.example" {
			t.Errorf("envelope: from %s to %v", m.from, m.to)
			continue
		}
		by[m.to[0]] = parse(t, m.data)
	}
	hr := by["hr@example.test"]
	if hr.language != "cs" || !strings.Contains(hr.subject, "upozornění na doklady") || !strings.Contains(hr.text, "Jan Novák") ||
		!strings.Contains(hr.text, "Cestovní pas") || !strings.Contains(hr.html, "<table") || !strings.Contains(hr.html, base+"/drivers/"+st.driver.String()+"/documents/") {
		t.Errorf("HR digest as received: %+v", hr)
	}
	drv := by["jan@example.test"]
	if drv.language != "pl" || !strings.Contains(drv.subject, "Twoje dokumenty") || !strings.Contains(drv.text, "Prześlij nowy dokument") ||
		!strings.Contains(drv.html, base+"/drivers/"+st.driver.String()+"/documents/") {
		t.Errorf("driver e-mail as received: %+v", drv)
	}
	if by["admin@example.test"].language != "en" || !strings.Contains(by["admin@example.test"].subject, "document alerts") {
		t.Errorf("admin digest: %+v", by["admin@example.test"])
	}
}

// TestWithoutSMTPKeptInOutbox: without SMTP_URL nothing is sent and the
// e-mail stays in the outbox.
func TestWithoutSMTPKeptInOutbox(t *testing.T) {
	st := newSetup(t)
	var logged strings.Builder
	mailer, err := alerts.NewMailer(st.db, slog.New(slog.NewTextHandler(&logged, nil)), "", "Konvoj <alerts@konvoj.example>")
	if err != nil {
		t.Fatal(err)
	}
	res := scan(t, st.s, st.f.Company, "2026-06-16")
	for _, e := range res.Emails {
		if err := mailer.Deliver(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`); n != 3 {
		t.Errorf("%d e-mails kept, want 3", n)
	}
	if !strings.Contains(logged.String(), "kept in the outbox") || strings.Contains(logged.String(), "@example.test") {
		t.Errorf("log: %s", logged.String())
	}
}
