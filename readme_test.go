package tickwork

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goBlocks returns the bodies of the ```go blocks of a Markdown text, in
// order. Other blocks (```sh, ```text) are not Go and are left alone.
func goBlocks(text string) []string {
	var blocks []string
	var cur []string
	in, isGo := false, false
	for _, line := range strings.Split(text, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case fence && !in:
			in, isGo = true, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "```")) == "go"
			cur = nil
		case fence && in:
			if isGo {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			}
			in = false
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// TestReadmeGoBlocksCompile: every ```go block of the README is a complete
// program, with its package clause and imports, and compiles against
// today's code. Each block becomes package main of its own in a directory
// under the module whose name starts with "_", so that ./... never sees
// it, and one go vet type-checks them all. A fragment belongs in a block
// of another language.
func TestReadmeGoBlocksCompile(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(string(b))
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block: the complete program is gone")
	}
	dir, err := os.MkdirTemp(".", "_readme_blocks")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs []string
	for i, src := range blocks {
		if !strings.HasPrefix(strings.TrimSpace(src), "package ") {
			t.Errorf("README.md's ```go block %d does not start with a package clause: make it a complete program, or mark a fragment ```text", i+1)
			continue
		}
		pkg := filepath.Join(dir, fmt.Sprintf("block%d", i+1))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(pkg))
	}
	if len(pkgs) == 0 {
		return
	}
	out, err := exec.Command("go", append([]string{"vet"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Errorf("README.md's ```go blocks do not compile or vet cleanly (blockN/main.go:L is line L of the Nth block): %v\n%s", err, out)
	}
}

// TestGoBlocksFindsEveryGoBlock: the extraction takes the ```go blocks and
// only those, so a README block cannot escape the compile check by its
// position or its neighbours.
func TestGoBlocksFindsEveryGoBlock(t *testing.T) {
	text := "intro\n```sh\nmake test\n```\n```go\npackage main\n\nfunc main() {}\n```\ntext\n```text\nw.Run(ctx)\n```\n```go\npackage b\n```\n"
	got := goBlocks(text)
	want := []string{"package main\n\nfunc main() {}\n", "package b\n"}
	if len(got) != len(want) {
		t.Fatalf("goBlocks found %d blocks %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %q, want %q", i+1, got[i], want[i])
		}
	}
}
