package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := Write(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(data) != "two" || len(entries) != 1 {
		t.Errorf("content %q, %d files", data, len(entries))
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}
