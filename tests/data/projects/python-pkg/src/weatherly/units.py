"""Temperature units."""


def celsius_to_fahrenheit(celsius):
    return celsius * 9 / 5 + 32


def format_temperature(celsius, units):
    if units == "imperial":
        return f"{celsius_to_fahrenheit(celsius):.0f}°F"
    return f"{celsius:.0f}°C"
