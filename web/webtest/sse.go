package webtest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Message is one Server-Sent Events message.
type Message struct {
	ID, Event, Data string
}

// Stream is an open Server-Sent Events stream read in the background.
type Stream struct {
	Status int
	Header http.Header
	// Body is the answer's body when the stream was refused.
	Body []byte
	C    chan Message
	// Ended is closed when the server ends the stream.
	Ended  chan struct{}
	cancel context.CancelFunc
}

// OpenStream opens url with the headers and reads its messages into C.
func OpenStream(tb testing.TB, url string, header http.Header) *Stream {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		tb.Fatalf("open stream %s: %v", url, err)
	}
	s := &Stream{Status: res.StatusCode, Header: res.Header, C: make(chan Message, 1024), Ended: make(chan struct{}), cancel: cancel}
	tb.Cleanup(s.Close)
	if res.StatusCode != http.StatusOK {
		s.Body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		close(s.Ended)
		return s
	}
	go func() {
		defer close(s.Ended)
		defer res.Body.Close()
		r := bufio.NewReader(res.Body)
		var m Message
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				if m.Event != "" || m.Data != "" {
					s.C <- m
				}
				m = Message{}
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "id: "):
				m.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				m.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				m.Data = line[6:]
			}
		}
	}()
	return s
}

// Next returns the next message, or false when none comes within wait.
func (s *Stream) Next(wait time.Duration) (Message, bool) {
	select {
	case m := <-s.C:
		return m, true
	case <-time.After(wait):
		return Message{}, false
	}
}

// Close ends the stream from the client's side.
func (s *Stream) Close() { s.cancel() }

// Stream opens the caller's live-update stream, resuming after lastID
// when it is not empty.
func (c *Caller) Stream(lastID string) *Stream {
	c.env.T.Helper()
	h := http.Header{}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	if lastID != "" {
		h.Set("Last-Event-ID", lastID)
	}
	return OpenStream(c.env.T, c.env.Server.URL+"/api/v0/events", h)
}
