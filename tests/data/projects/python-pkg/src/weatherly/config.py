"""Settings from the settings file and the environment."""

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from weatherly.exceptions import ConfigError

SETTINGS_FILE = Path.home() / ".config" / "weatherly" / "settings.toml"


@dataclass
class Settings:
    units: str = "metric"
    api_key_env: str = "WEATHERLY_KEY"
    cache_minutes: int = 30


def load_settings(path=SETTINGS_FILE, environ=os.environ):
    """Reads the settings file, then lets WEATHERLY_* variables override it."""
    values = {}
    if path.exists():
        try:
            values = tomllib.loads(path.read_text()).get("weatherly", {})
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: {error}") from error
    for key in ("units", "api_key_env", "cache_minutes"):
        env = environ.get(f"WEATHERLY_{key.upper()}")
        if env is not None:
            values[key] = env
    unknown = set(values) - {"units", "api_key_env", "cache_minutes"}
    if unknown:
        raise ConfigError(f"unknown settings: {sorted(unknown)}")
    return Settings(**values)
