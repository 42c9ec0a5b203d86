import pytest

from weatherly.config import load_settings
from weatherly.exceptions import ConfigError


def test_config_loads_defaults(tmp_path):
    settings = load_settings(tmp_path / "settings.toml", environ={})
    assert settings.units == "metric"


def test_config_error_on_unknown_setting(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text("[weatherly]\nfoo = 1\n")
    with pytest.raises(ConfigError):
        load_settings(path, environ={})


def test_config_env_overrides_settings(tmp_path):
    settings = load_settings(tmp_path / "settings.toml", environ={"WEATHERLY_UNITS": "imperial"})
    assert settings.units == "imperial"
