// Package checker checks links.
package checker

import (
	"context"
	"errors"
	"net/http"

	"example.com/linkcheck/internal/config"
)

// Result is the outcome of one link.
type Result struct {
	URL string
	Err error
}

// Checker checks links with the settings of one run.
type Checker struct {
	cfg    *config.Config
	client *http.Client
}

func New(cfg *config.Config) *Checker {
	return &Checker{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}
}

// Check requests one link and classifies what went wrong.
func (c *Checker) Check(ctx context.Context, url string) Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return Result{URL: url, Err: err}
	}
	resp, err := c.client.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return Result{URL: url, Err: ErrTimeout}
	}
	if err != nil {
		return Result{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return Result{URL: url, Err: &StatusError{URL: url, Status: resp.StatusCode}}
	}
	return Result{URL: url}
}

// CheckDir checks every link found in the pages under dir.
func (c *Checker) CheckDir(dir string) []Result {
	var results []Result
	for _, url := range findLinks(dir) {
		results = append(results, c.Check(context.Background(), url))
	}
	return results
}
