package live

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/konvoj/konvoj/internal/auth"
)

// Who reads which event (docs/live-updates.md, "What a stream carries"):
// the same matrix as the API's reads. An event goes to a caller whose role
// may read its kind of record; a caller limited to its own records (a
// driver) gets only the events about its own driver record; a caller who
// reads documents without files, or drivers without their personal fields
// (a dispatcher), gets the event's data without them, as the API answers
// it; a notification goes to its recipient only. Vehicle and trailer events
// go to the office only: a driver reads the fleet of its active unit, which
// an event cannot tell, so a driver's stream leaves them out (the app
// reloads its unit on the document events of its own records).

// readOf is the action that reads the record an event is about.
func readOf(eventType string) (auth.Action, bool) {
	kind, _, _ := strings.Cut(eventType, ".")
	switch kind {
	case "driver":
		return auth.DriversRead, true
	case "document":
		return auth.DocumentsList, true
	case "finance_transaction", "finance_period":
		return auth.FinanceRead, true
	case "penalty":
		return auth.PenaltiesRead, true
	case "rating":
		return auth.RatingRead, true
	case "vehicle", "trailer":
		return auth.FleetRead, true
	case "import":
		return auth.DriversImport, true
	}
	return "", false
}

// Frame is the event as the caller may read it, ready for the wire (id,
// event and data lines), or nil when the caller may not read it.
func (e *Event) Frame(p auth.Principal) []byte {
	if e.CompanyID != p.CompanyID {
		return nil
	}
	if e.Type == NotificationCreated {
		if e.UserID == nil || *e.UserID != p.UserID {
			return nil
		}
		return e.frames(false)
	}
	action, ok := readOf(e.Type)
	if !ok {
		return nil
	}
	grant := p.Grant(action)
	if e.Type == "import.completed" && grant == auth.Deny {
		grant = p.Grant(auth.FleetWrite) // a fleet import's author
	}
	switch grant {
	case auth.Deny:
		return nil
	case auth.Own:
		if action == auth.FleetRead || e.DriverID == nil || p.DriverID == nil || *e.DriverID != *p.DriverID {
			return nil
		}
		return e.frames(false)
	case auth.NoFiles:
		return e.frames(true)
	}
	if action == auth.DriversRead && p.Grant(auth.DriversPersonal) == auth.Deny {
		return e.frames(true)
	}
	return e.frames(false)
}

// withheld are the data keys a restricted frame leaves out: a driver's
// personal fields (auth.PersonalFields, as the API's driver answer leaves
// them out), a document's files (the status-only view of documents).
func withheld(eventType string) []string {
	if strings.HasPrefix(eventType, "driver.") {
		return auth.PersonalFields
	}
	return []string{"files"}
}

// frames returns the full or the restricted frame, making both once.
func (e *Event) frames(restricted bool) []byte {
	e.once.Do(func() {
		e.full = frame(e.ID, e.Type, e.Body)
		if e.Type == "document.review_completed" {
			// Its data is the reviewed file itself: nothing is left to
			// show a caller who may not see files.
			e.restrictedErr = errFileEvent
			return
		}
		body, err := strip(e.Body, withheld(e.Type))
		if err != nil {
			e.restrictedErr = err
			return
		}
		e.restricted = frame(e.ID, e.Type, body)
	})
	if restricted {
		if e.restrictedErr != nil {
			return nil // a body that cannot be projected is not sent at all
		}
		return e.restricted
	}
	return e.full
}

var errFileEvent = errors.New("live: the event is a file")

// strip removes keys from the body's data object.
func strip(body []byte, keys []string) ([]byte, error) {
	var b map[string]json.RawMessage
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(b["data"], &data); err != nil {
		return nil, err
	}
	for _, k := range keys {
		delete(data, k)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	b["data"] = raw
	return json.Marshal(b)
}

// frame is one Server-Sent Events message. The body is JSON on one line
// (JSON escapes the line breaks inside strings).
func frame(id int64, eventType string, body []byte) []byte {
	out := make([]byte, 0, len(body)+len(eventType)+40)
	out = append(out, "id: "...)
	out = strconv.AppendInt(out, id, 10)
	out = append(out, "\nevent: "...)
	out = append(out, eventType...)
	out = append(out, "\ndata: "...)
	out = append(out, body...)
	return append(out, "\n\n"...)
}
