"""weatherly: weather forecasts in your terminal."""

__version__ = "1.4.0"
