// Command linkcheck checks the links of a folder of HTML pages.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/linkcheck/internal/checker"
	"example.com/linkcheck/internal/config"
	"example.com/linkcheck/internal/report"
)

func main() {
	configPath := flag.String("config", "", "config file")
	flag.Parse()
	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkcheck:", err)
		os.Exit(2)
	}
	c := checker.New(cfg)
	results := c.CheckDir(flag.Arg(0))
	report.Write(os.Stdout, results)
	if report.AnyBroken(results) {
		os.Exit(1)
	}
}
