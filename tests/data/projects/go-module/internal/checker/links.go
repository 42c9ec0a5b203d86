package checker

import (
	"os"
	"path/filepath"
	"regexp"
)

var hrefPattern = regexp.MustCompile(`href="(https?://[^"]+)"`)

// findLinks lists the absolute links of every HTML page under dir; the
// remaining files are skipped.
func findLinks(dir string) []string {
	var links []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".html" {
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, m := range hrefPattern.FindAllSubmatch(data, -1) {
			links = append(links, string(m[1]))
		}
		return nil
	})
	return links
}
