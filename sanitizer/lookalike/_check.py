"""Argument errors shared by the lookalike functions: TypeError naming the argument for
non-str input, ValueError for a ``ch`` that is not exactly one character."""

from __future__ import annotations

from typing import NoReturn


def bad_str(value: object, name: str, where: str) -> NoReturn:
    raise TypeError(f"{where}() argument '{name}' must be str, not {type(value).__name__}")


def check_char(value: object, where: str) -> str:
    """``value`` when it is a str of exactly one character."""
    if not isinstance(value, str):
        bad_str(value, "ch", where)
    if len(value) != 1:
        raise ValueError(f"{where}() argument 'ch' must be exactly one character, not {len(value)}")
    return value
