// Package payslipstest reads the text of the PDFs the tests make, as a
// person copying it from a viewer would (pdftotext, from poppler-utils,
// which scripts/install-deps.sh installs).
package payslipstest

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Text is the text pdftotext extracts from pdf, its white space (no-break
// spaces too) collapsed to single spaces. Without pdftotext the test
// fails: it never skips, so a machine that cannot check the letters of a
// payslip cannot pass.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext (poppler-utils) is needed to read a payslip's text: run scripts/install-deps.sh")
	}
	cmd := exec.Command("pdftotext", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return Squash(string(out))
}

// Squash collapses white space, no-break spaces included, to single
// spaces, to compare an expected text with Text's.
func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }
