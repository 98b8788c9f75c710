package finance

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/payslips"
)

// PayslipFile is a rendered payslip: the PDF and the name it downloads
// under.
type PayslipFile struct {
	// Name is "<internal number>-<name>-<YYYY-MM>.pdf" in plain ASCII
	// (PayslipName).
	Name string
	PDF  []byte
}

// Payslip renders the payslip of period periodID of driver driverID
// (docs/finance.md, "Payslips"): whoever reads the driver's periods, the
// driver its own.
func (s *Service) Payslip(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID) (PayslipFile, error) {
	per, err := loadPeriod(ctx, s.db, p, auth.FinanceRead, driverID, periodID, false)
	if err != nil {
		return PayslipFile{}, err
	}
	head, err := payslipHead(ctx, s.db, per.CompanyID, per.DriverID, per.ID)
	if err != nil {
		return PayslipFile{}, err
	}
	lines, err := payslipLines(ctx, s.db, per.CompanyID, []payslipPeriod{head})
	if err != nil {
		return PayslipFile{}, err
	}
	var buf bytes.Buffer
	if err := payslips.Render(&buf, head.payslip(lines[head.ID], p.Today())); err != nil {
		return PayslipFile{}, err
	}
	return PayslipFile{Name: head.fileName(), PDF: buf.Bytes()}, nil
}

// payslipBatch is how many payslips of a month are read from the database
// at a time: memory follows the batch, not the number of drivers.
var payslipBatch = 200

// WritePayslips writes every driver's payslip of a month as one ZIP, one
// PDF per monthly period starting on periodStart (a driver paid in two
// currencies has two), named by PayslipName, drivers in the order of their
// numbers; the caller must read the payroll (403). periodStart must
// be the first day of a month, YYYY-MM-01 (422 otherwise); start is called
// once it has been checked, with the month, and returns the writer of the
// download. The periods are read in batches and each PDF is written into
// the ZIP as soon as it is made and its turn has come, so memory does not
// grow with the number of drivers; an error after start can only cut the
// ZIP short.
func (s *Service) WritePayslips(ctx context.Context, p auth.Principal, periodStart string, start func(month civil.Date) (io.Writer, error)) error {
	company, err := collectionScope(p, auth.PayrollRead)
	if err != nil {
		return err
	}
	var v apperr.Validation
	month := monthStart(periodStart, &v)
	if err := v.Err(); err != nil {
		return err
	}
	w, err := start(month)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the reading and rendering when writing fails
	zw := zip.NewWriter(w)
	now := time.Now()
	for next := range s.renderPayslips(ctx, company.CompanyID(), month, p.Today()) {
		r := <-next
		if r.err != nil {
			return r.err
		}
		// Stored, not deflated: a PDF's streams are compressed already.
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: r.name, Method: zip.Store, Modified: now})
		if err == nil {
			_, err = fw.Write(r.pdf)
		}
		if err != nil {
			return fmt.Errorf("payslips of %s: %w", month, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("payslips of %s: %w", month, err)
	}
	return nil
}

// renderedPayslip is one payslip of the month, or the error that ends the
// month's payslips.
type renderedPayslip struct {
	name string
	pdf  []byte
	err  error
}

// renderPayslips reads the month's periods batch by batch and renders
// their payslips on as many goroutines as the process has CPUs (rendering,
// mostly the font's subsetting, is CPU-bound work that dwarfs the reads;
// docs/performance.md, "Payslips"). It answers
// one channel per payslip, in order, each receiving the payslip when it is
// made: at most that many payslips are being made or wait to be written at
// a time. The channel is closed after the last one, or after an error
// (sent as the last payslip); cancelling ctx stops it.
func (s *Service) renderPayslips(ctx context.Context, companyID uuid.UUID, month, today civil.Date) <-chan chan renderedPayslip {
	out := make(chan chan renderedPayslip, runtime.GOMAXPROCS(0))
	send := func(next chan renderedPayslip) bool {
		select {
		case out <- next:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fail := func(err error) {
		next := make(chan renderedPayslip, 1)
		next <- renderedPayslip{err: err}
		send(next)
	}
	go func() {
		defer close(out)
		var after *payslipPeriod
		for {
			heads, err := payslipHeads(ctx, s.db, companyID, month, after, payslipBatch)
			if err != nil {
				fail(err)
				return
			}
			lines, err := payslipLines(ctx, s.db, companyID, heads)
			if err != nil {
				fail(err)
				return
			}
			for i := range heads {
				h := &heads[i]
				next := make(chan renderedPayslip, 1)
				if !send(next) {
					return
				}
				ps := h.payslip(lines[h.ID], today)
				go func() {
					var buf bytes.Buffer
					err := payslips.Render(&buf, ps)
					next <- renderedPayslip{name: h.fileName(), pdf: buf.Bytes(), err: err}
				}()
			}
			if len(heads) < payslipBatch {
				return
			}
			after = &heads[len(heads)-1]
		}
	}()
	return out
}

// PayslipName is the file name of a payslip: the driver's internal number
// and name and the period's month (its first day for a weekly or
// quarterly period), in plain ASCII (export.FileName), and the currency
// when it is not the company's: "DRV-0042-Jiri-Dvorak-2026-11.pdf",
// "DRV-0042-Jiri-Dvorak-2026-11-EUR.pdf".
func PayslipName(number, name, periodType string, start civil.Date, currency, companyCurrency string) string {
	when := start.String()
	if periodType == PeriodMonthly {
		when = when[:len("2006-01")]
	}
	if currency == companyCurrency {
		currency = ""
	}
	return export.FileName(number, name, when, currency) + ".pdf"
}

// payslipPeriod is a period with what its payslip says of the driver and
// the company.
type payslipPeriod struct {
	Period
	DriverNumber, DriverName string
	driverSeq                int64
	// Lang is the driver's language, else the company's.
	Lang                         i18n.Lang
	CompanyName, CompanyCurrency string
}

func (h *payslipPeriod) fileName() string {
	return PayslipName(h.DriverNumber, h.DriverName, h.PeriodType, h.PeriodStart, h.Currency, h.CompanyCurrency)
}

// payslip is the payslip of the period with its lines, made today.
func (h *payslipPeriod) payslip(lines []payslips.Line, today civil.Date) payslips.Payslip {
	return payslips.Payslip{
		Lang: h.Lang, Company: h.CompanyName, DriverName: h.DriverName, DriverNumber: h.DriverNumber,
		PeriodType: h.PeriodType, Status: h.Status, PeriodStart: h.PeriodStart, PeriodEnd: h.PeriodEnd,
		Currency: h.Currency, Lines: lines,
		Earnings: h.TotalEarnings, Deductions: h.TotalDeductions, Net: h.NetAmount, Issued: today,
	}
}
