"""The command line."""

import argparse
import sys

from weatherly.client import Client
from weatherly.config import load_settings
from weatherly.exceptions import WeatherlyError
from weatherly.units import format_temperature


def build_parser():
    parser = argparse.ArgumentParser(prog="weatherly")
    sub = parser.add_subparsers(dest="command", required=True)
    forecast = sub.add_parser("forecast", help="show the forecast for a city")
    forecast.add_argument("city")
    forecast.add_argument("--days", type=int, default=3)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        client = Client(settings)
        for day in client.forecast(args.city, days=args.days):
            print(day.date, format_temperature(day.celsius, settings.units))
    except WeatherlyError as error:
        print(f"weatherly: {error}", file=sys.stderr)
        return 2
    return 0
