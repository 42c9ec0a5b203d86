"""One day of a forecast."""

from dataclasses import dataclass


@dataclass
class Day:
    date: str
    celsius: float
    summary: str

    @classmethod
    def from_json(cls, data):
        return cls(data["date"], float(data["celsius"]), data.get("summary", ""))
