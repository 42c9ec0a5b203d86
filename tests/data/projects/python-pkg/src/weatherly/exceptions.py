"""Every error weatherly raises."""


class WeatherlyError(Exception):
    """The base of all weatherly errors."""


class ConfigError(WeatherlyError):
    """The settings file or environment is broken."""


class FetchError(WeatherlyError):
    """The forecast service failed, even after retries."""


class UnknownCityError(WeatherlyError):
    """The forecast service does not know the city."""
