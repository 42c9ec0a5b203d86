import pytest

from weatherly.config import Settings


@pytest.fixture
def settings():
    return Settings(units="metric", cache_minutes=0)
