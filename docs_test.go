package tickwork

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsStandAlone: the README, docs/ and bench's pages link only to files of the
// repository that exist, and never tell a reader to build the worker binary
// into the worker/ package folder.
func TestDocsStandAlone(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	benchDocs, err := filepath.Glob("bench/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, benchDocs...)
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	for _, doc := range append(docs, "README.md", "store/SEMANTICS.md") {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, bad := range []string{"../shared", "-o worker ", "./worker "} {
			if strings.Contains(text, bad) {
				t.Errorf("%s mentions %q", doc, bad)
			}
		}
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, target)
			}
		}
	}
}

// repoPath matches a path that may name a file or folder of the
// repository: segments of name characters joined by slashes, not preceded
// by a name character or a slash (so that neither an import path nor a
// URL's tail matches from its middle); a leading ./ is dropped.
var repoPath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(?:\./)?([A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.*-]+)+/?)`)

// fileExts are the endings that make a cited path's last segment a file
// name; any other dotted tail ("store/pg.Options", "worker/engine.Core")
// names a Go identifier in the package before it.
var fileExts = map[string]bool{"go": true, "md": true, "sql": true, "txt": true, "json": true, "png": true, "html": true, "sh": true, "mod": true, "sum": true, "yml": true, "yaml": true, "css": true, "tmpl": true}

// citedPaths returns the paths of text that start at a top-level entry of
// the repository (top), as the repository's root would resolve them.
func citedPaths(text string, top map[string]bool) []string {
	var out []string
	for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(m[1], ".")
		first, _, _ := strings.Cut(p, "/")
		if !top[first] || strings.Contains(p, "*") {
			continue
		}
		p = strings.TrimSuffix(p, "/")
		dir, last := filepath.Split(p)
		if name, ext, ok := strings.Cut(last, "."); ok && !fileExts[ext] {
			p = dir + name // a Go identifier after the package's path
		}
		out = append(out, strings.TrimSuffix(p, "/"))
	}
	return out
}

// TestCitedPathsExist: every repository path that the README, docs/,
// store/SEMANTICS.md, bench's pages or a Go comment cites (worker/run.go,
// store/pg/migrations, sim/picture) exists, so that a reader sent to a
// file finds it after it was renamed or removed.
func TestCitedPathsExist(t *testing.T) {
	top := map[string]bool{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			top[e.Name()] = true
		}
	}
	check := func(where, text string) {
		for _, p := range citedPaths(text, top) {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s cites %s, which does not exist", where, p)
			}
		}
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	benchDocs, err := filepath.Glob("bench/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range slices.Concat([]string{"README.md", "store/SEMANTICS.md"}, docs, benchDocs) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			check(fmt.Sprintf("%s:%d", doc, i+1), line)
		}
	}
	for _, file := range goFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(file, -1, len(src)), src, nil, scanner.ScanComments)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.COMMENT {
				check(fset.Position(pos).String(), lit)
			}
		}
	}
}

// notOurs reports whether a folder holds no file of the repository's own:
// those the go tool ignores (a leading dot or underscore) and npm's
// installed packages (node_modules, under the bench's graphile folder).
func notOurs(dir string) bool {
	return strings.HasPrefix(dir, ".") || strings.HasPrefix(dir, "_") || dir == "node_modules"
}

// goFiles returns the repository's Go files, bench's module included,
// leaving out folders the go tool ignores.
func goFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && notOurs(d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCitedPathsFindsWhatACommentCites: the path extraction takes a file,
// a folder and a package before a Go identifier, and leaves import paths,
// URLs and paths outside the repository alone.
func TestCitedPathsFindsWhatACommentCites(t *testing.T) {
	top := map[string]bool{"worker": true, "store": true}
	text := "see worker/tick.go, `store/pg/migrations/` and store/pg.Options; go test ./worker/...; " +
		"github.com/tickwork/tickwork/worker and https://example.com/store/x, /work/store/y, bin/worker."
	got := citedPaths(text, top)
	want := []string{"worker/tick.go", "store/pg/migrations", "store/pg", "worker"}
	if !slices.Equal(got, want) {
		t.Errorf("citedPaths = %q, want %q", got, want)
	}
}
