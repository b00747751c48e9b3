//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A run whose output pipe closes ("bucma simulate -v ... 2>&1 | head")
// stops as on SIGINT: its outputs are left as the README says (the rows
// written so far in FILE.partial, or the complete files when the run ended
// first), never as the temporary FILE.tmp-NNN files.
func TestSimulateBrokenPipe(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `"$BUCMA" simulate -v -p lille -w "$W" --scheduler easy -e "$D/x" --trace "$D/trace.csv" 2>&1 | head -c 1 >/dev/null`)
	cmd.Env = append(os.Environ(), "BUCMA_TEST_MAIN=1", "BUCMA="+self, "W="+filepath.Join("..", "workloads", "lille-7056.json"), "D="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*"))
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	partial := []string{"trace.csv.partial", "x_jobs.csv.partial"}
	complete := []string{"trace.csv", "x_jobs.csv", "x_schedule.csv"}
	if !slices.Equal(names, partial) && !slices.Equal(names, complete) {
		t.Errorf("outputs %s, want %s or %s", strings.Join(names, " "), strings.Join(partial, " "), strings.Join(complete, " "))
	}
}
