"""Forecast service domains per region; the remaining regions use the default."""

DOMAINS = {
    "eu": "eu.forecast.example",
    "us": "us.forecast.example",
}


def domain_for(region):
    return DOMAINS.get(region, "forecast.example")
