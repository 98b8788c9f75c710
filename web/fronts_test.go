package web_test

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// frontsWindow is how many lines in a row make a repeated block.
const frontsWindow = 6

// frontsKinds is how many different line shapes a block needs to count: a
// run of fewer is a table (a route list, the rows of a literal, a block of
// constants), whose likeness between fronts is its form, not code.
const frontsKinds = 4

// TestFrontsShareTheirEdges: no block of six or more lines, the same or of
// the same shape with other names, strings and numbers, stands in a
// hand-written file of the API (web/api) and again in one of the pages
// (web/pages), tests included: what both fronts need lives once, in web,
// webtest or the services (docs/development.md, "Two fronts, one edge").
// Blank lines, comments, the package clause, import blocks and lone
// punctuation are passed over, and so are tables (frontsKinds; rows of one
// shape in a row count as one line); generated templ code is not
// hand-written.
func TestFrontsShareTheirEdges(t *testing.T) {
	api := frontLines(t, "api")
	pages := frontLines(t, "pages")
	seen := map[string]string{}
	for _, l := range windows(api) {
		if _, ok := seen[l.shape]; !ok {
			seen[l.shape] = l.at
		}
	}
	found := 0
	reported := map[string]bool{}
	for _, l := range windows(pages) {
		at, ok := seen[l.shape]
		if !ok || reported[at] {
			continue
		}
		reported[at] = true
		found++
		if found <= 20 {
			t.Errorf("%s repeats %s:\n%s", l.at, at, l.text)
		}
	}
	if found > 20 {
		t.Errorf("… and %d more", found-20)
	}
}

// shapeLine is one significant line of a file: its tokens with names,
// strings and numbers replaced by their kind.
type shapeLine struct {
	at    string // file:line
	shape string
	text  string
}

// frontLines reads the hand-written Go files of one front as shape lines.
func frontLines(t *testing.T, dir string) [][]shapeLine {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]shapeLine
	for _, name := range files {
		if strings.HasSuffix(name, "_templ.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, shapeOf(name, src))
	}
	return out
}

// shapeOf turns a Go file into its significant lines.
func shapeOf(name string, src []byte) []shapeLine {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	byLine := map[int][]string{}
	var order []int
	inImport, depth := false, 0
	prev := token.ILLEGAL
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			prev = tok
			continue
		}
		if tok == token.PACKAGE {
			// The package clause names the file's front; it is no code.
			s.Scan()
			continue
		}
		if tok == token.IMPORT {
			inImport = true
		}
		if inImport {
			switch tok {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
				if depth == 0 {
					inImport = false
				}
			case token.STRING:
				if depth == 0 && prev == token.IMPORT {
					inImport = false
				}
			}
			prev = tok
			continue
		}
		prev = tok
		line := file.Line(pos)
		var w string
		switch tok {
		case token.IDENT:
			w = "id"
		case token.STRING, token.CHAR:
			w = "str"
		case token.INT, token.FLOAT, token.IMAG:
			w = "num"
		default:
			w = tok.String()
		}
		if _, ok := byLine[line]; !ok {
			order = append(order, line)
		}
		byLine[line] = append(byLine[line], w)
	}
	lines := strings.Split(string(src), "\n")
	var out []shapeLine
	for _, n := range order {
		toks := byLine[n]
		if len(toks) == 1 && strings.Trim(toks[0], "(){}[],;") == "" {
			continue // lone punctuation
		}
		shape := strings.Join(toks, " ")
		if len(out) > 0 && out[len(out)-1].shape == shape {
			// Rows of one shape in a row are a table (a route list, a
			// literal's fields): its rows, as many as each front needs,
			// are one line of the block, so that a front's mount table
			// between two functions is no repeated code.
			continue
		}
		out = append(out, shapeLine{at: name + ":" + itoa(n), shape: shape, text: strings.TrimSpace(lines[n-1])})
	}
	return out
}

// windows lists every run of frontsWindow lines of each file.
func windows(files [][]shapeLine) []shapeLine {
	var out []shapeLine
	for _, f := range files {
		for i := 0; i+frontsWindow <= len(f); i++ {
			kinds := map[string]bool{}
			for _, l := range f[i : i+frontsWindow] {
				kinds[l.shape] = true
			}
			if len(kinds) < frontsKinds {
				continue // a table: routes, rows, constants
			}
			var shape, text strings.Builder
			for _, l := range f[i : i+frontsWindow] {
				shape.WriteString(l.shape + "\n")
				text.WriteString("    " + l.text + "\n")
			}
			out = append(out, shapeLine{at: f[i].at, shape: shape.String(), text: text.String()})
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
