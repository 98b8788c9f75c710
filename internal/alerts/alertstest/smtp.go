// Package alertstest runs a real SMTP server inside a test process, for the
// tests of e-mail delivery.
package alertstest

import (
	"encoding/base64"
	"errors"
	"io"
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
)

// SMTPServer is a real SMTP server in the test process that keeps what it
// receives; Refuse makes it answer 451 (a temporary failure) to every
// recipient, like a server that is down for a while.
type SMTPServer struct {
	mu       sync.Mutex
	received []Received
	// Refuse: answer 451 to every recipient.
	Refuse atomic.Bool
	// Addr is host:port.
	Addr string
}

// Received is one accepted message: envelope and raw data.
type Received struct {
	From string
	To   []string
	Data string
}

// StartSMTP starts a server on a free local port, closed when the test ends.
func StartSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// NewSession implements smtp.Backend.
func (s *SMTPServer) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{srv: s}, nil }

// Messages returns the messages received so far.
func (s *SMTPServer) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

type session struct {
	srv *SMTPServer
	msg Received
}

func (s *session) Reset()        { s.msg = Received{} }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.msg.From = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.srv.Refuse.Load() {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.msg.To = append(s.msg.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.msg.Data = string(b)
	s.srv.mu.Lock()
	s.srv.received = append(s.srv.received, s.msg)
	s.srv.mu.Unlock()
	return nil
}

// Parsed is a received e-mail, decoded: subject, Content-Language and the
// plain text and HTML parts.
type Parsed struct {
	Subject, Language, Text, HTML string
}

// Parse decodes a received message.
func Parse(t testing.TB, data string) Parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var p Parsed
	dec := new(mime.WordDecoder)
	if p.Subject, err = dec.DecodeHeader(m.Header.Get("Subject")); err != nil {
		t.Fatal(err)
	}
	p.Language = m.Header.Get("Content-Language")
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
			p.Text = string(b)
		case "text/html":
			p.HTML = string(b)
		}
	}
	return p
}
