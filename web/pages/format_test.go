package pages

import (
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Sizes are in binary units everywhere (the README's "20 MiB" is the
// default UPLOAD_MAX_BYTES of 20971520 bytes).
func TestFormatSizeUsesBinaryUnits(t *testing.T) {
	for _, tc := range []struct {
		n      int64
		en, cs string
	}{
		{0, "0\u00a0B", "0\u00a0B"},
		{1023, "1023\u00a0B", "1023\u00a0B"},
		{1024, "1\u00a0KiB", "1\u00a0KiB"},
		{65536, "64\u00a0KiB", "64\u00a0KiB"},
		{850 << 10, "850\u00a0KiB", "850\u00a0KiB"},
		{1 << 20, "1\u00a0MiB", "1\u00a0MiB"},
		{12*(1<<20) + 512<<10, "12.5\u00a0MiB", "12,5\u00a0MiB"},
		{20971520, "20\u00a0MiB", "20\u00a0MiB"},
		{3 << 30, "3\u00a0GiB", "3\u00a0GiB"},
	} {
		if got := formatSize(i18n.EN, tc.n); got != tc.en {
			t.Errorf("formatSize(en, %d) = %q, want %q", tc.n, got, tc.en)
		}
		if got := formatSize(i18n.CS, tc.n); got != tc.cs {
			t.Errorf("formatSize(cs, %d) = %q, want %q", tc.n, got, tc.cs)
		}
	}
}

// A holder's page and its documents' pages: a driver's, a vehicle's, a
// trailer's; a notification about a vehicle's document opens that page.
func TestHolderURLs(t *testing.T) {
	holder, doc := uuid.MustParse("11111111-1111-4111-8111-111111111111"), uuid.MustParse("22222222-2222-4222-8222-222222222222")
	for typ, want := range map[string]string{"driver": "/drivers/", "vehicle": "/vehicles/", "trailer": "/trailers/"} {
		if got := holderURL(typ, holder); got != want+holder.String() {
			t.Errorf("holderURL(%s) = %q", typ, got)
		}
		if got := holderDocumentURL(typ, holder, doc); got != want+holder.String()+"/documents/"+doc.String() {
			t.Errorf("holderDocumentURL(%s) = %q", typ, got)
		}
	}
	vehicle := "vehicle"
	n := alerts.Notification{Kind: alerts.KindAlert, Stage: alerts.StageLead, HolderType: &vehicle, HolderID: &holder, DocumentID: &doc}
	if got := notificationLink(n); got != "/vehicles/"+holder.String()+"/documents/"+doc.String() {
		t.Errorf("a vehicle's document notification links to %q", got)
	}
	driver := "driver"
	n = alerts.Notification{Kind: alerts.KindAlert, Stage: alerts.StageLead, DriverID: &holder, HolderType: &driver, HolderID: &holder, DocumentID: &doc}
	if got := notificationLink(n); got != documentURL(holder, doc) {
		t.Errorf("a driver's document notification links to %q", got)
	}
	// A unit's change of readiness opens its row on the readiness board.
	n = alerts.Notification{Kind: alerts.KindUnit, Stage: "not_ready", DriverID: &holder, UnitID: &doc}
	if got := notificationLink(n); got != "/#unit-"+doc.String() {
		t.Errorf("a unit's notification links to %q", got)
	}
}
