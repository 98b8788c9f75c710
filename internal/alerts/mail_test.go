package alerts_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/alerts/alertstest"
)

// TestDeliveryThroughSMTP: the scan's e-mails go through a real SMTP
// server: a refusing server keeps them in the outbox (attempt counted, no
// address in the error), a recovered one gets each exactly once, and a
// repeated delivery sends nothing more.
func TestDeliveryThroughSMTP(t *testing.T) {
	st := newSetup(t)
	smtpd := alertstest.StartSMTP(t)
	mailer, err := alerts.NewMailer(st.db, slog.New(slog.NewTextHandler(io.Discard, nil)), "smtp://"+smtpd.Addr+"?tls=none", "Konvoj <alerts@konvoj.example>")
	if err != nil {
		t.Fatal(err)
	}
	res := scan(t, st.s, st.f.Company, "2026-06-16")
	if len(res.Emails) != 3 {
		t.Fatalf("%d e-mails", len(res.Emails))
	}

	smtpd.Refuse.Store(true)
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

	smtpd.Refuse.Store(false)
	for range 2 { // the retry, then a repeat (a restart re-enqueueing it)
		for _, e := range res.Emails {
			if err := mailer.Deliver(ctx, e.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	msgs := smtpd.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages received, want 3", len(msgs))
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND attempts = 2`); n != 3 {
		t.Errorf("%d e-mails marked sent after 2 attempts, want 3", n)
	}
	by := map[string]alertstest.Parsed{}
	for _, m := range msgs {
		if len(m.To) != 1 || m.From != "alerts@konvoj.example" {
			t.Errorf("envelope: from %s to %v", m.From, m.To)
			continue
		}
		by[m.To[0]] = alertstest.Parse(t, m.Data)
	}
	hr := by["hr@example.test"]
	if hr.Language != "cs" || !strings.Contains(hr.Subject, "upozornění na doklady") || !strings.Contains(hr.Text, "Jan Novák") ||
		!strings.Contains(hr.Text, "Cestovní pas") || !strings.Contains(hr.HTML, "<table") || !strings.Contains(hr.HTML, base+"/drivers/"+st.driver.String()+"/documents/") {
		t.Errorf("HR digest as received: %+v", hr)
	}
	drv := by["jan@example.test"]
	if drv.Language != "pl" || !strings.Contains(drv.Subject, "Twoje dokumenty") || !strings.Contains(drv.Text, "Prześlij nowy dokument") ||
		!strings.Contains(drv.HTML, base+"/drivers/"+st.driver.String()+"/documents/") {
		t.Errorf("driver e-mail as received: %+v", drv)
	}
	if by["admin@example.test"].Language != "en" || !strings.Contains(by["admin@example.test"].Subject, "document alerts") {
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
