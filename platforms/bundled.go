package platforms

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:generate go run ./internal/platgen

//go:embed bot.xml bot-2nodes.xml cluster-256.xml lille.xml lille-cores.xml mcmca.xml osep.xml sge.xml sge-pi50.xml
var bundledFS embed.FS

// BundledNames lists the platform files embedded in the binary:
// bot-2nodes.xml, bot.xml, cluster-256.xml, lille-cores.xml, lille.xml, mcmca.xml, osep.xml, sge-pi50.xml, sge.xml.
func BundledNames() []string {
	entries, err := fs.ReadDir(bundledFS, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// bundledFile maps "lille", "lille.xml" or "platforms/lille.xml" to the
// embedded file name.
func bundledFile(name string) (string, bool) {
	base := strings.TrimPrefix(name, "platforms/")
	if strings.ContainsAny(base, `/\`) {
		return "", false
	}
	if !strings.HasSuffix(base, ".xml") {
		base += ".xml"
	}
	for _, n := range BundledNames() {
		if n == base {
			return n, true
		}
	}
	return "", false
}

// BundledName is the name of the bundled platform that name spells: "lille"
// for "lille", "lille.xml" or "platforms/lille.xml".
func BundledName(name string) (string, bool) {
	file, ok := bundledFile(name)
	return strings.TrimSuffix(file, ".xml"), ok
}

// BundledList lists the bundled platforms by name ("bot-2nodes, bot, ...,
// lille, ..."), for messages.
func BundledList() string {
	names := BundledNames()
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".xml")
	}
	return strings.Join(names, ", ")
}

// Locate finds the platform pathOrName names, as every command of bucma
// reads a platform: the file at that path (relative to dir when dir is
// given and the path is not absolute) when there is one, else the bundled
// platform it spells (BundledName); a directory is not a platform file (a
// folder named osep does not hide the bundled osep). It returns the file's
// path or the bundled platform's name, the other empty.
func Locate(dir, pathOrName string) (file, bundled string, err error) {
	path := pathOrName
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return path, "", nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("platform %s: %w", pathOrName, err)
	}
	if name, ok := BundledName(pathOrName); ok {
		return "", name, nil
	}
	return "", "", fmt.Errorf("platform %q: no such file and no such bundled platform (bundled: %s)", pathOrName, BundledList())
}

// BundledXML returns the text of a bundled platform ("lille", "lille.xml",
// "lille-cores", "osep", ...), for instance to write it to a file that a
// real Batsim reads.
func BundledXML(name string) ([]byte, error) {
	file, ok := bundledFile(name)
	if !ok {
		return nil, fmt.Errorf("platform %q: no such bundled platform (bundled: %s)", name, BundledList())
	}
	return bundledFS.ReadFile(file)
}

// Bundled loads a bundled platform; its Path is the bundled file name
// ("lille.xml").
func Bundled(name string) (*Platform, error) {
	data, err := BundledXML(name)
	if err != nil {
		return nil, err
	}
	file, _ := bundledFile(name)
	return ParseOptions(bytes.NewReader(data), file, Options{})
}

// Resolve loads a platform from a file path or, when no such file exists,
// from the bundled platforms ("lille", "lille.xml", "osep", ...).
func Resolve(pathOrName string) (*Platform, error) {
	return ResolveOptions(pathOrName, Options{})
}

// ResolveOptions is Resolve with options.
func ResolveOptions(pathOrName string, opt Options) (*Platform, error) {
	path, name, err := Locate("", pathOrName)
	if err != nil {
		return nil, err
	}
	if path != "" {
		return LoadOptions(path, opt)
	}
	file, _ := bundledFile(name)
	data, err := bundledFS.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseOptions(bytes.NewReader(data), file, opt)
}
