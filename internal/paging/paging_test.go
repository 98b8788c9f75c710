package paging

import "testing"

func TestNumberedPages(t *testing.T) {
	for _, c := range []struct {
		total, number, size     int
		items                   int
		last, first, prev, next int
	}{
		{0, 1, 20, 0, 1, 0, 0, 0},
		{45, 1, 20, 20, 3, 1, 0, 2},
		{45, 3, 20, 5, 3, 41, 2, 0},
		{45, 9, 20, 0, 3, 0, 3, 0}, // past the end: back to the last page
		{40, 2, 20, 20, 2, 21, 1, 0},
	} {
		p := New(make([]int, c.items), c.total, Request{Number: c.number, Size: c.size})
		if p.LastPage() != c.last || p.First() != c.first || p.Prev() != c.prev || p.Next() != c.next {
			t.Errorf("%+v: last %d first %d prev %d next %d", c, p.LastPage(), p.First(), p.Prev(), p.Next())
		}
	}
	if New[int](nil, 0, Request{Number: 1, Size: 5}).Items == nil {
		t.Error("an empty page has no items, not nil: the API writes []")
	}
}

func TestKeysetAndMap(t *testing.T) {
	p := Keyset([]int{1, 2}, "c2", true, Request{Size: 2})
	if !p.Request.Keyset || p.NextCursor != "c2" || !p.HasMore {
		t.Fatalf("keyset page: %+v", p)
	}
	q := Map(p, func(n int) string { return string(rune('a' + n)) })
	if len(q.Items) != 2 || q.Items[1] != "c" || q.NextCursor != "c2" || !q.Request.Keyset {
		t.Fatalf("mapped page: %+v", q)
	}
	if n := New([]int{1, 2, 3}, 45, Request{Number: 2, Size: 20}); n.First() != 21 || n.Last() != 23 {
		t.Errorf("first %d last %d", n.First(), n.Last())
	}
	if Keyset[int](nil, "", false, Request{}).Items == nil {
		t.Error("an empty keyset page has no items, not nil")
	}
}
