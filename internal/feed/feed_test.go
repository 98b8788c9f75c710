package feed_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/tenants"
)

// TestFeedOrderDeletedAndCompany: a feed (here the finance transactions')
// answers the rows changed since updated_since, oldest change first, page
// after page by its cursor; deleted rows only with include_deleted; never
// another company's rows; include_deleted alone is 422.
func TestFeedOrderDeletedAndCompany(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	svc := finance.NewService(db, nil, 0, []byte("test cursor key"), nil)
	insert := func(company, driver uuid.UUID, n int) []uuid.UUID {
		var ids []uuid.UUID
		for i := range n {
			var id uuid.UUID
			if err := db.QueryRow(ctx, `INSERT INTO finance_transactions (company_id, driver_id, transaction_type, amount, currency, transaction_date)
				VALUES ($1, $2, 'bonus', $3, 'CZK', DATE '2026-01-05') RETURNING id`, company, driver, 10+i).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	company, other := fixtures.Company(t, db), fixtures.Company(t, db)
	driver := fixtures.Driver(t, db, company)
	ids := insert(company, driver, 4)
	insert(other, fixtures.Driver(t, db, other), 2)
	since := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	// Change the first row last and delete the second: the feed orders by
	// the change, and shows the deletion only when asked.
	time.Sleep(10 * time.Millisecond)
	if _, err := db.Exec(ctx, `UPDATE finance_transactions SET description = 'changed' WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `UPDATE finance_transactions SET deleted_at = now() WHERE id = $1`, ids[1]); err != nil {
		t.Fatal(err)
	}
	// The feed answers rows stamped before its horizon (a second ago).
	time.Sleep(1100 * time.Millisecond)

	p, err := tenants.NewService(db).Principal(ctx, auth.Identity{Subject: uuid.NewString(), Email: "acc@example.test",
		CompanyID: company.String(), Role: auth.RoleAccountant})
	if err != nil {
		t.Fatal(err)
	}
	read := func(params feed.Params) []uuid.UUID {
		t.Helper()
		var out []uuid.UUID
		for range 10 {
			page, err := svc.FeedTransactions(ctx, p, driver, finance.TransactionFilter{}, params, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range page.Items {
				out = append(out, tr.ID)
			}
			if !page.HasMore {
				return out
			}
			params = feed.Params{Cursor: page.NextCursor, IncludeDeleted: params.IncludeDeleted, Limit: params.Limit}
		}
		t.Fatal("the feed did not end")
		return nil
	}
	same := func(got, want []uuid.UUID) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if got[i] != want[i] {
				return false
			}
		}
		return true
	}
	if got, want := read(feed.Params{UpdatedSince: since, Limit: 1}), []uuid.UUID{ids[2], ids[3], ids[0]}; !same(got, want) {
		t.Fatalf("feed %v, want %v (changed row last, deleted row absent, no other company's rows)", got, want)
	}
	if got, want := read(feed.Params{UpdatedSince: since, IncludeDeleted: "true", Limit: 2}), []uuid.UUID{ids[2], ids[3], ids[0], ids[1]}; !same(got, want) {
		t.Fatalf("feed with deleted %v, want %v", got, want)
	}
	if got := read(feed.Params{UpdatedSince: time.Now().UTC().Format(time.RFC3339Nano)}); len(got) != 0 {
		t.Fatalf("nothing changed since now, feed %v", got)
	}
	if _, err := svc.FeedTransactions(ctx, p, driver, finance.TransactionFilter{}, feed.Params{IncludeDeleted: "true"}, nil); apperr.KindOf(err) != apperr.KindValidation {
		t.Fatalf("include_deleted alone: %v", err)
	}
}
