"""Fixtures of the Five Crowns tests."""

from __future__ import annotations

import pytest

from service.plugins import Registry

from .support import registry


@pytest.fixture
def reg() -> Registry:
    return registry()
