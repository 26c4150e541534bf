"""Placeholder: ``sanitizer check`` (lead developer)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    del sub
