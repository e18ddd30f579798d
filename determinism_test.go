package tickwork

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// guardedDirs must stay deterministic: no wall clock, no global randomness.
var guardedDirs = []string{"worker", "store", "sim", "props", "history", "tickworktest"}

// bannedTime are the time functions that read or wait on the real clock.
var bannedTime = map[string]bool{
	"Now": true, "Sleep": true, "After": true, "AfterFunc": true,
	"Since": true, "Until": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

// allowedRand are the math/rand functions that build seeded sources rather
// than draw from the global one.
var allowedRand = map[string]bool{
	"New": true, "NewPCG": true, "NewChaCha8": true, "NewSource": true, "NewZipf": true,
}

// TestNoWallClockOrGlobalRand fails when non-test code in a guarded package
// reads the real clock or the global math/rand source; those must come from
// clockrng so that a seed replays a run exactly.
func TestNoWallClockOrGlobalRand(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, dir := range guardedDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			checked++
			for _, v := range violations(fset, f) {
				t.Errorf("%s: %s (use an injected clockrng.Clock or clockrng.Rand)", v.pos, v.call)
			}
			return nil
		})
		if err != nil && !errorsIsNotExist(err) {
			t.Fatal(err)
		}
	}
	t.Logf("checked %d files", checked)
}

type violation struct {
	pos  token.Position
	call string
}

func violations(fset *token.FileSet, f *ast.File) []violation {
	names := map[string]string{} // local import name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var out []violation
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || pkg.Obj != nil {
			return true
		}
		switch names[pkg.Name] {
		case "time":
			if bannedTime[sel.Sel.Name] {
				out = append(out, violation{fset.Position(sel.Pos()), "time." + sel.Sel.Name})
			}
		case "math/rand", "math/rand/v2":
			if !allowedRand[sel.Sel.Name] && ast.IsExported(sel.Sel.Name) && !isType(sel.Sel.Name) {
				out = append(out, violation{fset.Position(sel.Pos()), "global rand." + sel.Sel.Name})
			}
		}
		return true
	})
	return out
}

func isType(name string) bool {
	switch name {
	case "Rand", "Source", "PCG", "ChaCha8", "Zipf", "Source64":
		return true
	}
	return false
}

func errorsIsNotExist(err error) bool { return strings.Contains(err.Error(), "no such file") }

// TestGuardCatchesViolations proves the guard is not vacuous.
func TestGuardCatchesViolations(t *testing.T) {
	src := `package p
import (
	"time"
	mr "math/rand"
)
func f() { _ = time.Now(); time.Sleep(1); <-time.After(1); _ = mr.Intn(3); _ = mr.New(mr.NewSource(1)); _ = time.Duration(1) }`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range violations(fset, f) {
		got = append(got, v.call)
	}
	want := "time.Now time.Sleep time.After global rand.Intn"
	if strings.Join(got, " ") != want {
		t.Fatalf("violations = %q, want %q", strings.Join(got, " "), want)
	}
}
