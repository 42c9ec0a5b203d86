"""Talks to the forecast service."""

import time

import requests

from weatherly.cache import ForecastCache
from weatherly.exceptions import FetchError, UnknownCityError
from weatherly.forecast import Day

API = "https://forecast.example/v1"


class Client:
    def __init__(self, settings, session=None):
        self.settings = settings
        self.session = session or requests.Session()
        self.cache = ForecastCache(settings.cache_minutes)

    def forecast(self, city, days=3):
        cached = self.cache.get(city, days)
        if cached is not None:
            return cached
        data = self._get(f"{API}/forecast", {"city": city, "days": days})
        result = [Day.from_json(d) for d in data["days"]]
        self.cache.put(city, days, result)
        return result

    def _get(self, url, params, attempts=3):
        for attempt in range(attempts):
            response = self.session.get(url, params=params, timeout=10)
            if response.status_code == 404:
                raise UnknownCityError(params["city"])
            if response.ok:
                return response.json()
            time.sleep(2**attempt)
        raise FetchError(f"{url} failed {attempts} times")
