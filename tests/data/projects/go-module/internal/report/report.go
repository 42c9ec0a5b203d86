// Package report prints the results.
package report

import (
	"fmt"
	"io"

	"example.com/linkcheck/internal/checker"
)

// Write prints one line per broken link and a total.
func Write(w io.Writer, results []checker.Result) {
	broken := 0
	for _, r := range results {
		if r.Err != nil {
			broken++
			fmt.Fprintf(w, "BROKEN %s: %v\n", r.URL, r.Err)
		}
	}
	fmt.Fprintf(w, "%d links, %d broken\n", len(results), broken)
}

// AnyBroken says whether any link failed.
func AnyBroken(results []checker.Result) bool {
	for _, r := range results {
		if r.Err != nil {
			return true
		}
	}
	return false
}
