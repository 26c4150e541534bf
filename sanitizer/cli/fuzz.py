"""Placeholder: filled in by the fuzz work (see docs/contract.md)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    del sub


def _unused(args: argparse.Namespace) -> int:
    return 0
