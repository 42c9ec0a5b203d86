// Package config loads linkcheck's settings.
package config

import (
	"fmt"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Config holds the settings of one run.
type Config struct {
	Timeout time.Duration `yaml:"timeout"`
	Workers int           `yaml:"workers"`
	Ignore  []string      `yaml:"ignore"`
}

// Default is used when no config file is given.
func Default() *Config {
	return &Config{Timeout: 10 * time.Second, Workers: 8}
}

// Load reads the config file at path; an empty path means the defaults.
func Load(path string) (*Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if err := yaml.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
