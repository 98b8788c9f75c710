package expiring_test

import (
	"testing"

	"github.com/konvoj/konvoj/internal/expiring"
)

func TestMakeRoom(t *testing.T) {
	expired := func(e int) bool { return e < 0 }

	m := map[string]int{"a": 1, "b": -1}
	expiring.MakeRoom(m, 3, expired)
	if len(m) != 2 {
		t.Fatalf("below the bound: %v, want both kept", m)
	}

	m = map[string]int{"a": 1, "b": -1, "c": 2}
	expiring.MakeRoom(m, 3, expired)
	if _, ok := m["b"]; ok || len(m) != 2 {
		t.Fatalf("full with one expired: %v, want the expired one gone", m)
	}

	m = map[string]int{"a": 1, "b": 2, "c": 3}
	expiring.MakeRoom(m, 3, expired)
	if len(m) != 0 {
		t.Fatalf("full with none expired: %v, want it emptied", m)
	}
}
