// Package doctest finds the shell blocks of the project's documentation
// (README.md and docs/*.md) and how each is tested. Every fenced block whose
// info string is sh, bash or console is preceded, on the line just before
// its fence, by an HTML comment saying so:
//
//	<!-- test: run -->             run from a fresh copy of the repository, after make build; it must pass
//	<!-- test: batsim -->          the same, when the real Batsim is on PATH (skipped otherwise)
//	<!-- test: containers -->      Docker commands, run by the container tier
//	<!-- test: batsim5 -->         Batsim 5 commands, run by the Batsim 5 tier (internal/realbatsim5, where batsim5 is)
//	<!-- test: slurm -->           Slurm commands, run by the Slurm tier (scripts/test-slurm) on its own cluster
//	<!-- test: skip REASON -->     not run (a template, a long campaign): REASON says why
//
// Its test (doctest_test.go) fails on a shell block without a valid marker
// and runs the run and batsim blocks in document order, so that the
// documented commands cannot drift from the software.
package doctest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Kinds of blocks.
const (
	Run        = "run"
	Batsim     = "batsim"
	Containers = "containers"
	Slurm      = "slurm"
	Batsim5    = "batsim5"
	Skip       = "skip"
)

// Block is one shell block of a document.
type Block struct {
	File   string // path relative to the repository
	Line   int    // line of the opening fence (1-based)
	Info   string // sh, bash or console
	Kind   string // Run, Batsim, Batsim5, Containers, Slurm or Skip
	Reason string // Skip's reason
	Text   string // the block's lines
}

// Script is the text to give bash: the block, or for a console block the
// commands of its "$ " lines.
func (b Block) Script() string {
	if b.Info != "console" {
		return b.Text
	}
	var cmds []string
	for _, l := range strings.Split(b.Text, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "$ "); ok {
			cmds = append(cmds, c)
		}
	}
	return strings.Join(cmds, "\n") + "\n"
}

func (b Block) String() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Documents returns the documents whose blocks are tested: README.md and
// docs/*.md under root, relative to it.
func Documents(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(docs)
	out := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

var (
	fenceRE  = regexp.MustCompile("^(```+|~~~+)\\s*([^`\\s]*)")
	markerRE = regexp.MustCompile(`^<!-- test: (run|batsim5|batsim|containers|slurm|skip)(?:\s+(.*?))?\s*-->\s*$`)
)

// shellInfo reports whether a fence's info string marks a shell block.
func shellInfo(info string) bool {
	switch info {
	case "sh", "bash", "console":
		return true
	}
	return false
}

// Parse returns the shell blocks of the document rel under root, and the
// problems found: a shell block without a marker, a marker that is not one
// of the four, a skip without a reason, a marker before something else
// than a shell block, a fence never closed.
func Parse(root, rel string) ([]Block, []string, error) {
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	var blocks []Block
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", rel, line, fmt.Sprintf(format, args...)))
	}
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.HasPrefix(lines[i], "<!-- test:") && (i+1 >= len(lines) || fenceRE.FindStringSubmatch(lines[i+1]) == nil) {
				bad(i+1, "a test marker must be on the line just before a fenced shell block")
			}
			continue
		}
		fence, info := m[1], m[2]
		end := i + 1
		for ; end < len(lines); end++ {
			l := strings.TrimRight(lines[end], " ")
			if strings.HasPrefix(l, fence[:1]) && strings.Trim(l, fence[:1]) == "" && len(l) >= len(fence) {
				break
			}
		}
		if end == len(lines) {
			bad(i+1, "fenced block never closed")
			return blocks, problems, nil
		}
		text := ""
		if end > i+1 {
			text = strings.Join(lines[i+1:end], "\n") + "\n"
		}
		var marker []string
		if i > 0 {
			marker = markerRE.FindStringSubmatch(lines[i-1])
		}
		switch {
		case !shellInfo(info):
			if marker != nil {
				bad(i, "a test marker before a %q block (markers are for sh, bash and console blocks)", info)
			}
		case marker == nil && i > 0 && strings.HasPrefix(lines[i-1], "<!-- test:"):
			bad(i, "unknown test marker %q (want <!-- test: run|batsim|batsim5|containers|slurm|skip REASON -->)", lines[i-1])
		case marker == nil:
			bad(i+1, "%s block without a test marker on the line before it (<!-- test: run|batsim|batsim5|containers|slurm|skip REASON -->)", info)
		case marker[1] == Skip && strings.TrimSpace(marker[2]) == "":
			bad(i, "<!-- test: skip --> needs a reason")
		case marker[1] != Skip && marker[2] != "":
			bad(i, "<!-- test: %s --> takes no argument (got %q)", marker[1], marker[2])
		default:
			blocks = append(blocks, Block{File: rel, Line: i + 1, Info: info, Kind: marker[1], Reason: strings.TrimSpace(marker[2]), Text: text})
		}
		i = end
	}
	return blocks, problems, nil
}
