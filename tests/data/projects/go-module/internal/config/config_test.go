package config

import "testing"

func TestLoadDefaultsWithoutConfigFile(t *testing.T) {
	cfg, err := Load("")
	if err != nil {
		t.Fatalf("config error: %v", err)
	}
	if cfg.Workers != 8 {
		t.Errorf("config workers = %d", cfg.Workers)
	}
}

func TestLoadMissingConfigIsAnError(t *testing.T) {
	if _, err := Load("missing.yaml"); err == nil {
		t.Error("expected a config error")
	}
}
