package pgtest

import (
	"encoding/json"
	"testing"
)

// PlanNode is a node of a plan as EXPLAIN (ANALYZE, FORMAT JSON) prints it:
// its type, the table it reads (if any), its rows per loop, its loops and
// the nodes below it.
type PlanNode struct {
	Type        string     `json:"Node Type"`
	Relation    string     `json:"Relation Name"`
	ActualRows  float64    `json:"Actual Rows"`
	ActualLoops float64    `json:"Actual Loops"`
	Plans       []PlanNode `json:"Plans"`
}

// Rows is how many rows the node produced over all its loops.
func (n PlanNode) Rows() float64 { return n.ActualRows * n.ActualLoops }

// Nodes lists n and every node below it.
func (n PlanNode) Nodes() []PlanNode {
	out := []PlanNode{n}
	for _, c := range n.Plans {
		out = append(out, c.Nodes()...)
	}
	return out
}

// ParsePlan reads the output of EXPLAIN (ANALYZE, FORMAT JSON) of one
// statement and returns its top node.
func ParsePlan(t testing.TB, explain []byte) PlanNode {
	t.Helper()
	var top []struct {
		Plan PlanNode `json:"Plan"`
	}
	if err := json.Unmarshal(explain, &top); err != nil || len(top) != 1 {
		t.Fatalf("pgtest: EXPLAIN output: %v: %s", err, explain)
	}
	return top[0].Plan
}
