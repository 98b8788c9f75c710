package pages_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/views"
)

// Every text key the views and pages use exists (in English; the i18n
// tests check Czech has the same keys), including the keys built from a
// status, a document type or a field name: a missing key would show on
// the page as the key itself.
func TestTextKeysExist(t *testing.T) {
	literal := regexp.MustCompile(`(?:T\(ctx, |Label\(ctx, |lang\.T\(|\.flash\(c, [a-zA-Z.]+, |Label: |Title: |p\.render\(c, [^,]+, |p\.formAnswer\(c, |Label:\s+)"([a-z0-9_]+\.[a-z0-9_.]*[a-z0-9_])"`)
	var files []string
	for _, pattern := range []string{"../../views/*.templ", "*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	keys := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			keys[m[1]] = true
		}
	}
	if len(keys) < 80 {
		t.Fatalf("found only %d keys: the pattern no longer matches the code", len(keys))
	}
	for _, s := range drivers.Statuses {
		keys["driver.status."+s] = true
	}
	for _, s := range documents.Statuses {
		keys["doc.status."+s] = true
		keys["drivers.docfilter."+s] = true
	}
	for _, ty := range documents.Types {
		keys["doc.type."+ty] = true
	}
	for _, st := range documents.Stages {
		keys["home.stage."+st] = true
		keys["home.stage."+st+".about"] = true
	}
	for _, ty := range finance.PenaltyTypes {
		keys["pay.penalty_type."+ty] = true
	}
	for _, m := range rating.Metrics {
		keys["rating.metric."+m] = true
		keys["ratingcfg.about."+m] = true
		keys["ratingcfg.threshold."+rating.ThresholdKey(m)] = true
	}
	for _, tr := range []string{rating.TrendImproving, rating.TrendDeclining, rating.TrendStable, rating.TrendInsufficientData} {
		keys["rating.trend."+tr] = true
	}
	for m := 1; m <= 12; m++ {
		keys["rating.month."+strconv.Itoa(m)] = true
	}
	for _, b := range []string{"0-50", "50-70", "70-85", "85-100"} {
		keys["ranking.band."+b] = true
	}
	for _, k := range []string{"place", "internal_number", "first_name", "last_name", "office", "status", "score",
		"percentile", "previous", "change", "weakest", "weakest_score"} {
		keys["ranking.export."+k] = true
	}
	for _, f := range views.DriverFormFields() {
		keys["driver.field."+f] = true
	}
	for k := range keys {
		if !i18n.EN.Has(k) {
			t.Errorf("text key %q is used but not defined", k)
		}
	}
}
