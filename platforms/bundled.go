package platforms

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

//go:generate go run ./internal/platgen

//go:embed bot.xml bot-2nodes.xml lille.xml lille-cores.xml mcmca.xml osep.xml sge.xml sge-pi50.xml
var bundledFS embed.FS

// BundledNames lists the platform files embedded in the binary:
// bot-2nodes.xml, bot.xml, lille-cores.xml, lille.xml, mcmca.xml, osep.xml, sge-pi50.xml, sge.xml.
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

// BundledXML returns the text of a bundled platform ("lille", "lille.xml",
// "lille-cores", "osep", ...), for instance to write it to a file that a
// real Batsim reads.
func BundledXML(name string) ([]byte, error) {
	file, ok := bundledFile(name)
	if !ok {
		return nil, fmt.Errorf("platform %q: no such bundled platform (bundled: %s)", name, strings.Join(BundledNames(), ", "))
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
	if _, err := os.Stat(pathOrName); err == nil {
		return LoadOptions(pathOrName, opt)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if file, ok := bundledFile(pathOrName); ok {
		data, err := bundledFS.ReadFile(file)
		if err != nil {
			return nil, err
		}
		return ParseOptions(bytes.NewReader(data), file, opt)
	}
	return nil, fmt.Errorf("platform %q: no such file and no such bundled platform (bundled: %s)",
		pathOrName, strings.Join(BundledNames(), ", "))
}
