package finance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
)

// penaltyColumns and penaltyFrom read penalties as scanPenalty scans them.
var (
	penaltyColumns = `
	SELECT pe.id, pe.finance_id, ft.status, pe.company_id, pe.driver_id, pe.penalty_type, pe.severity, pe.amount, pe.currency,
		pe.status, pe.incident_date, pe.location, pe.description, pe.evidence, pe.dispute_reason, pe.dispute_submitted_at,
		pe.resolution, ` + userName("ru") + `, pe.resolved_at, pe.metadata, ` + userName("cu") + `, pe.created_at, pe.updated_at, pe.deleted_at,
		pe.correction_id`
	penaltyJoins = `
	JOIN finance_transactions ft ON ft.id = pe.finance_id
	LEFT JOIN users ru ON ru.id = pe.resolved_by
	LEFT JOIN users cu ON cu.id = pe.created_by`
	penaltyFrom = `
	FROM penalties pe` + penaltyJoins
	penaltyQuery = penaltyColumns + penaltyFrom
)

// penaltyPageQuery selects penaltyColumns for one page of penalties
// (pageQuery).
func penaltyPageQuery(where, order, limit string) string {
	return pageQuery(penaltyColumns, `penalties`, `pe`, penaltyJoins, where, order, limit)
}

// scanPenalty scans the columns of penaltyColumns into p, then into extra
// the columns a query selects after them.
func scanPenalty(row pgx.Row, p *Penalty, extra ...any) error {
	err := row.Scan(append([]any{&p.ID, &p.FinanceID, &p.FinanceStatus, &p.CompanyID, &p.DriverID, &p.PenaltyType, &p.Severity, &p.Amount, &p.Currency,
		&p.Status, &p.IncidentDate, &p.Location, &p.Description, &p.Evidence, &p.DisputeReason, &p.DisputeSubmittedAt,
		&p.Resolution, &p.ResolvedBy, &p.ResolvedAt, &p.Metadata, &p.CreatedBy, &p.CreatedAt, &p.UpdatedAt, &p.DeletedAt,
		&p.CorrectionID}, extra...)...)
	if p.Evidence == nil {
		p.Evidence = []Evidence{}
	}
	return err
}

// getPenalty reads a live penalty of the driver (404 otherwise); lock takes
// the penalty's row lock.
func getPenalty(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID, lock bool) (Penalty, error) {
	q := penaltyQuery + ` WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.id = $3 AND pe.deleted_at IS NULL`
	if lock {
		q += ` FOR UPDATE OF pe`
	}
	var p Penalty
	err := scanPenalty(db.QueryRow(ctx, q, companyID, driverID, id), &p)
	if postgres.IsNotFound(err) {
		return Penalty{}, apperr.NotFound("msg.common.not_found.penalty")
	}
	if err != nil {
		return Penalty{}, fmt.Errorf("read penalty %s: %w", id, err)
	}
	if lock {
		return p, nil // a change's own read: its files are not needed
	}
	pens := []Penalty{p}
	if err := withEvidence(ctx, db, companyID, pens); err != nil {
		return Penalty{}, err
	}
	return pens[0], nil
}

// lockPenaltyStatus locks the live penalty id (checked for the caller
// before) and returns its status.
func lockPenaltyStatus(ctx context.Context, tx pgx.Tx, companyID, id uuid.UUID) (string, error) {
	var status string
	err := tx.QueryRow(ctx, `SELECT status FROM penalties WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
		companyID, id).Scan(&status)
	if postgres.IsNotFound(err) {
		return "", apperr.NotFound("msg.common.not_found.penalty")
	}
	if err != nil {
		return "", fmt.Errorf("lock penalty %s: %w", id, err)
	}
	return status, nil
}

// insertPenaltyRow inserts a new penalty owning the finance record
// financeID and returns its id.
func insertPenaltyRow(ctx context.Context, tx pgx.Tx, pen Penalty, financeID uuid.UUID, createdBy *uuid.UUID) (uuid.UUID, error) {
	evidence, _ := json.Marshal(pen.Evidence)
	var id uuid.UUID
	err := tx.QueryRow(ctx, `
		INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, severity, amount, currency, incident_date,
			location, description, evidence, metadata, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		RETURNING id`,
		pen.CompanyID, pen.DriverID, financeID, pen.PenaltyType, pen.Severity, pen.Amount, pen.Currency, pen.IncidentDate,
		pen.Location, pen.Description, evidence, pen.Metadata, createdBy).Scan(&id)
	if err != nil {
		return uuid.Nil, fmt.Errorf("insert penalty for driver %s: %w", pen.DriverID, err)
	}
	return id, nil
}

// movePenaltyRow writes a penalty move on the penalty pen: its status and
// extra fields; pen takes the values the row holds afterwards (RETURNING),
// so that the answer needs no second read.
func movePenaltyRow(ctx context.Context, tx pgx.Tx, pen *Penalty, m penaltyMove) error {
	args := append([]any{pen.ID, m.status}, m.args...)
	q := `UPDATE penalties SET status = $2`
	if m.set != "" {
		q += ", " + m.set
	}
	args = append(args, pen.CompanyID)
	q += fmt.Sprintf(` WHERE company_id = $%d AND id = $1`, len(args)) + `
		RETURNING status, amount, evidence, dispute_reason, dispute_submitted_at, resolution,
			(SELECT ` + userName("ru") + ` FROM users ru WHERE ru.id = penalties.resolved_by), resolved_at, updated_at`
	if err := tx.QueryRow(ctx, q, args...).Scan(&pen.Status, &pen.Amount, &pen.Evidence, &pen.DisputeReason, &pen.DisputeSubmittedAt,
		&pen.Resolution, &pen.ResolvedBy, &pen.ResolvedAt, &pen.UpdatedAt); err != nil {
		return fmt.Errorf("update penalty %s: %w", pen.ID, err)
	}
	if pen.Evidence == nil {
		pen.Evidence = []Evidence{}
	}
	return nil
}

// moveRecordRow writes a penalty move on its finance record: status and
// amount of next, over the record rec as the move read it. A record changed
// since (its updated_at moved) is not written: errMoved, and the move
// starts over.
func moveRecordRow(ctx context.Context, tx pgx.Tx, penaltyID uuid.UUID, rec, next Transaction) error {
	tag, err := tx.Exec(ctx, `UPDATE finance_transactions SET status = $2, amount = $3 WHERE company_id = $4 AND id = $1 AND updated_at = $5`,
		next.ID, next.Status, next.Amount, next.CompanyID, rec.UpdatedAt)
	if err != nil {
		return fmt.Errorf("update finance record %s of penalty %s: %w", next.ID, penaltyID, err)
	}
	if tag.RowsAffected() == 0 {
		return errMoved
	}
	return nil
}

// setCorrection links the penalty pen to the correction posted for it;
// pen takes the link and the row's new updated_at.
func setCorrection(ctx context.Context, tx pgx.Tx, pen *Penalty, correctionID uuid.UUID) error {
	if err := tx.QueryRow(ctx, `UPDATE penalties SET correction_id = $2 WHERE company_id = $3 AND id = $1 RETURNING correction_id, updated_at`,
		pen.ID, correctionID, pen.CompanyID).Scan(&pen.CorrectionID, &pen.UpdatedAt); err != nil {
		return fmt.Errorf("link correction %s to penalty %s: %w", correctionID, pen.ID, err)
	}
	return nil
}

// penaltyWhere is the WHERE clause of the penalty list: the live
// penalties that penaltyFilterSQL keeps.
func penaltyWhere(companyID, driverID uuid.UUID, f PenaltyFilter, a *postgres.Args) string {
	return `WHERE pe.deleted_at IS NULL AND ` + penaltyFilterSQL(companyID, driverID, f, a)
}

// penaltyFilterSQL is the filter of the driver's penalty list over
// penalties pe, deleted penalties included, with only the filters f sets
// (as transactionFilterSQL, and for the same reason).
func penaltyFilterSQL(companyID, driverID uuid.UUID, f PenaltyFilter, a *postgres.Args) string {
	conds := []string{`pe.company_id = ` + a.Add(companyID), `pe.driver_id = ` + a.Add(driverID)}
	conds = anyOf(conds, `pe.penalty_type`, f.Types, a)
	conds = anyOf(conds, `pe.status`, f.Statuses, a)
	conds = anyOf(conds, `pe.severity`, f.Severities, a)
	return strings.Join(conds, ` AND `)
}

// penaltyCounts is one currency of the filtered penalties: its total and
// its counts by status.
type penaltyCounts struct {
	total  PenaltyTotal
	counts PenaltySummary
}

// penaltyOrder orders the filtered penalties newest incident first.
const penaltyOrder = `ORDER BY pe.incident_date DESC, pe.id DESC`

// penaltyList reads the filtered penalties' counts per currency, a page of
// them and the page's evidence files in one batch: one round trip (the page
// is empty past the last one).
func penaltyList(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, f PenaltyFilter) ([]penaltyCounts, []Penalty, error) {
	var counts []penaltyCounts
	var page []Penalty
	b := &pgx.Batch{}
	queuePenaltyList(b, companyID, driverID, f, &counts, &page)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return counts, page, nil
}

// queuePenaltyList adds penaltyList's three statements to b: once b has
// run, *counts and *page hold their results. The driver's own lookup
// (Service.ReadPenalties) sends them with it. The evidence files are those
// of the page's penalties, which their statement selects again by the
// page's filter and order.
func queuePenaltyList(b *pgx.Batch, companyID, driverID uuid.UUID, f PenaltyFilter, counts *[]penaltyCounts, page *[]Penalty) {
	var ca postgres.Args
	countSQL := `
		SELECT pe.currency, count(*), COALESCE(sum(pe.amount) FILTER (WHERE pe.status <> 'cancelled'), 0),
			count(*) FILTER (WHERE pe.status = 'pending'), count(*) FILTER (WHERE pe.status = 'accepted'),
			count(*) FILTER (WHERE pe.status = 'disputed'), count(*) FILTER (WHERE pe.status = 'resolved'),
			count(*) FILTER (WHERE pe.status = 'cancelled')
		FROM penalties pe ` + penaltyWhere(companyID, driverID, f, &ca) + ` GROUP BY pe.currency ORDER BY pe.currency`
	b.Queue(countSQL, ca.Values...).Query(func(rows pgx.Rows) error {
		got, err := postgres.AppendRows(nil, rows, func(r pgx.Row, pc *penaltyCounts) error {
			t, c := &pc.total, &pc.counts
			return r.Scan(&t.Currency, &t.rows, &t.TotalPenalties, &c.PendingCount, &c.AcceptedCount, &c.DisputedCount,
				&c.ResolvedCount, &c.CancelledCount)
		})
		if err != nil {
			return fmt.Errorf("summarise penalties of driver %s: %w", driverID, err)
		}
		*counts = got
		return nil
	})
	// The page and its evidence files: one set of values, and the page's
	// filter, order and limit written into both statements.
	var pa postgres.Args
	where := penaltyWhere(companyID, driverID, f, &pa)
	limit := `LIMIT ` + pa.Add(f.PerPage) + ` OFFSET ` + pa.Add((f.Page-1)*f.PerPage)
	b.Queue(penaltyPageQuery(where, penaltyOrder, limit), pa.Values...).Query(func(rows pgx.Rows) error {
		got, err := postgres.AppendRows(make([]Penalty, 0, f.PerPage), rows, func(r pgx.Row, pen *Penalty) error { return scanPenalty(r, pen) })
		if err != nil {
			return fmt.Errorf("list penalties of driver %s: %w", driverID, err)
		}
		*page = got
		return nil
	})
	b.Queue(evidenceColumns+`
		WHERE e.company_id = $1 AND e.penalty_id IN (SELECT pe.id FROM penalties pe `+where+` `+penaltyOrder+` `+limit+`)
		ORDER BY e.created_at, e.id`, pa.Values...).Query(func(rows pgx.Rows) error {
		pens := *page
		ids := make([]uuid.UUID, len(pens))
		for i, pen := range pens {
			ids[i] = pen.ID
		}
		files, err := collectEvidence(rows, ids)
		if err != nil {
			return err
		}
		for i := range pens {
			pens[i].EvidenceFiles = files[pens[i].ID]
		}
		return nil
	})
}

// queueWhere is the WHERE clause of the company-wide penalty list over
// $1..$3: company, only this driver (nil: every driver), statuses.
const queueWhere = `
	WHERE pe.company_id = $1 AND pe.deleted_at IS NULL AND ($2::uuid IS NULL OR pe.driver_id = $2) AND pe.status = ANY($3)`

// queueRows reads a page of the company's penalties with their drivers,
// oldest dispute first (penalties never disputed by their creation), and
// the number of all that match.
func queueRows(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, only *uuid.UUID, f QueueFilter) ([]QueuedPenalty, int, error) {
	var total int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM penalties pe
		JOIN drivers dr ON dr.id = pe.driver_id AND dr.company_id = pe.company_id AND dr.deleted_at IS NULL`+queueWhere,
		companyID, only, f.Statuses).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count the penalty queue: %w", err)
	}
	rows, err := db.Query(ctx, penaltyColumns+`, dr.first_name, dr.last_name, dr.internal_number`+penaltyFrom+`
		JOIN drivers dr ON dr.id = pe.driver_id AND dr.company_id = pe.company_id AND dr.deleted_at IS NULL`+queueWhere+`
		ORDER BY COALESCE(pe.dispute_submitted_at, pe.created_at), pe.id
		LIMIT $4 OFFSET $5`, companyID, only, f.Statuses, f.PerPage, (f.Page-1)*f.PerPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list the penalty queue: %w", err)
	}
	out, err := postgres.AppendRows(make([]QueuedPenalty, 0, f.PerPage), rows, func(r pgx.Row, q *QueuedPenalty) error {
		var first, last string
		err := scanPenalty(r, &q.Penalty, &first, &last, &q.DriverNumber)
		q.DriverName = strings.TrimSpace(first + " " + last)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list the penalty queue: %w", err)
	}
	return out, total, nil
}
