"""Forecasts kept for a while, so repeated calls do not hit the service."""

import time


class ForecastCache:
    def __init__(self, minutes):
        self.ttl = minutes * 60
        self.entries = {}

    def get(self, city, days):
        entry = self.entries.get((city, days))
        if entry is None or time.time() - entry[0] > self.ttl:
            return None
        return entry[1]

    def put(self, city, days, forecast):
        self.entries[(city, days)] = (time.time(), forecast)
