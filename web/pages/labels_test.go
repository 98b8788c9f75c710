package pages_test

import (
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
)

// A form field's label and the messages about it say the same word
// (docs/texts.md): the driver form's labels are the fields' names in
// messages, capitalised, in every language; the transaction form's labels
// are those names themselves (views.Label); the other forms' labels
// contain the name their messages quote.
func TestFormLabelsSayTheirFieldsWord(t *testing.T) {
	for _, l := range i18n.Langs {
		for _, name := range views.DriverFormFields() {
			label, word := l.T("driver.field."+name), l.T("field."+name)
			if !strings.EqualFold(label, word) {
				t.Errorf("%s: the driver form's %s is labelled %q, its messages say %q", l, name, label, word)
			}
		}
	}
	contains := map[string]string{
		"penalty.dispute.reason":     "field.finance.dispute_reason",
		"penalty.description":        "field.finance.description",
		"penalty.resolve.new_amount": "field.finance.new_amount",
		"penalty.resolve.note":       "field.finance.resolution",
		"penalty.resolve.action":     "field.finance.resolution_action",
		"penalty.evidence.note":      "field.finance.note",
		"finance.reopen.reason":      "field.finance.reason",
		"review.reason":              "field.finance.reason",
		"webhooks.url":               "field.webhook.url",
		"webhooks.description":       "field.webhook.description",
	}
	for _, l := range []i18n.Lang{i18n.EN, i18n.CS} {
		for labelKey, fieldKey := range contains {
			label, word := l.T(labelKey, "amount", "100"), l.T(fieldKey)
			if !strings.Contains(strings.ToLower(label), strings.ToLower(word)) {
				t.Errorf("%s: the label %s %q does not say %q, the word of its messages (%s)", l, labelKey, label, word, fieldKey)
			}
		}
	}
}
