package documents

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/postgres"
)

// documentsFeed names the documents feed in its cursors.
const documentsFeed = "documents"

// Feed answers a driver's documents list in feed mode (docs/change-feed.md):
// the documents changed since (their fields, or a file version added or
// reviewed), oldest first. Documents are never deleted, so include_deleted
// changes nothing. The driver is checked for the caller first
// (auth.DocumentsList); read gives the feed's parameters, or their 400,
// after that.
func (s *Service) Feed(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*feed.Params) error) (feed.Page[Document], error) {
	driver, err := loadDriver(ctx, s.db, p, auth.DocumentsList, driverID)
	if err != nil {
		return feed.Page[Document]{}, err
	}
	var fp feed.Params
	if err := read(&fp); err != nil {
		return feed.Page[Document]{}, err
	}
	fq, err := feed.Prepare(ctx, s.db, s.feedCodec, documentsFeed, fp)
	if err != nil {
		return feed.Page[Document]{}, err
	}
	args := postgres.Args{Values: []any{driver.CompanyID, driver.ID}}
	sql := `SELECT d.id, d.updated_at FROM driver_documents d WHERE d.company_id = $1 AND d.driver_id = $2 AND ` +
		fq.Where("d", false, args.Add) + ` ` + fq.OrderLimit("d", args.Add)
	rows, err := s.db.Query(ctx, sql, args.Values...)
	if err != nil {
		return feed.Page[Document]{}, fmt.Errorf("feed of documents of driver %s: %w", driver.ID, err)
	}
	// The position comes from this statement's stamps: a document changed
	// since reads newer below, and comes again later, never lost.
	stamps := map[uuid.UUID]time.Time{}
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			rows.Close()
			return feed.Page[Document]{}, fmt.Errorf("scan document stamp: %w", err)
		}
		stamps[id] = at
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return feed.Page[Document]{}, fmt.Errorf("feed of documents of driver %s: %w", driver.ID, err)
	}
	docs := []Document{}
	if len(ids) > 0 {
		// The driver's documents of live types (a retired type's are
		// hidden here as in the list), those of the page kept.
		all, err := queryDocuments(ctx, s.db, driver.CompanyID, HolderDriver, driver.ID, nil, p.Today(), withFiles(p))
		if err != nil {
			return feed.Page[Document]{}, fmt.Errorf("feed of documents of driver %s: %w", driver.ID, err)
		}
		for _, d := range all {
			if _, ok := stamps[d.ID]; ok {
				docs = append(docs, d)
			}
		}
	}
	pos := func(d Document) feed.Position { return feed.Position{UpdatedAt: stamps[d.ID], ID: d.ID} }
	slices.SortFunc(docs, func(a, b Document) int {
		pa, pb := pos(a), pos(b)
		if c := pa.UpdatedAt.Compare(pb.UpdatedAt); c != 0 {
			return c
		}
		return slices.Compare(pa.ID[:], pb.ID[:])
	})
	return feed.Finish(s.feedCodec, fq, docs, pos), nil
}
