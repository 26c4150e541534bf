"""Argument checks for every public entry point: one wording for each mistake, in one place.

The rules, the same under both backends: an error names the function and the argument
(``decode() argument 'errors' must be str, not int``).  Options are keyword-only where
the signature says so; a choice is a str from its list (TypeError for a non-str,
ValueError for an unknown str); a flag is exactly True or False; a count is an int, not a
bool (TypeError), at least its minimum (ValueError), and any larger int is accepted
(counts beyond sys.maxsize mean "no limit").

Data is read as the exact built-in type before a strict check looks at it: a subclass of
``bytes`` or ``str`` can override ``decode``, ``encode``, ``isascii``, ``translate``,
``__bytes__`` or ``__iter__``, and a check that called them would judge what the caller's
methods say instead of the characters.  ``exact_bytes`` and ``exact_str`` copy through
the base type's own slots (``bytes.__getitem__``, ``str.__getitem__``), which never
dispatch to the subclass.

Core layer: pure, imports nothing from the package; shared by every layer (a documented
shared internal, like ``_native``).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import NoReturn, TypeVar

    Choice = TypeVar("Choice", bound=str)
    Data = TypeVar("Data")

_WHOLE = slice(None)


def type_name(value: object) -> str:
    """The name an error message gives ``value``'s type."""
    return type(value).__name__


def bad_type(value: object, expected: str, name: str, where: str) -> NoReturn:
    """Raise the TypeError for argument ``name`` of ``where()``: must be ``expected``."""
    raise TypeError(f"{where}() argument '{name}' must be {expected}, not {type_name(value)}")


def choice_list(choices: tuple[str, ...]) -> str:
    """``'a', 'b' or 'c'``: the choices as an error message lists them."""
    return " or ".join(", ".join(map(repr, choices)).rsplit(", ", 1))


def check_choice(value: object, choices: tuple[Choice, ...], name: str, where: str) -> Choice:
    """The member of ``choices`` that ``value`` equals (compared as an exact str, so a
    subclass's ``__eq__`` is never asked), or the error."""
    if type(value) is str and value in choices:
        return choices[choices.index(value)]
    if not isinstance(value, str):
        bad_type(value, "str", name, where)
    text = str.__getitem__(value, _WHOLE)
    if text not in choices:
        raise ValueError(
            f"{where}() argument '{name}' must be {choice_list(choices)}, not {text!r}"
        )
    return choices[choices.index(text)]


def check_flag(value: object, name: str, where: str) -> None:
    """``value`` must be exactly True or False."""
    if value is not True and value is not False:
        bad_type(value, "a bool", name, where)


def check_count(value: object, name: str, where: str, minimum: int) -> int:
    """``value`` as a count (clamped to sys.maxsize), or the error: an int, not a bool,
    at least ``minimum``.  An int subclass is read by ``int``'s own slot."""
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, int):
            bad_type(value, "None or an int", name, where)
        value = int.__int__(value)
    if value < minimum:
        raise ValueError(f"{where}() argument '{name}' must be None or >= {minimum}, not {value}")
    return min(value, sys.maxsize)


def exact_str(value: object, name: str, where: str) -> str:
    """``value`` as an exact ``str`` (a subclass copied), or the TypeError."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__getitem__(value, _WHOLE)  # a copy of exact type: no method of its own
    bad_type(value, "str", name, where)


def exact_bytes(data: object, name: str, where: str) -> bytes:
    """``data`` as an exact ``bytes``: bytes and bytearray (subclasses copied by their
    base type), memoryview or any other buffer; TypeError for str and non-buffers."""
    if type(data) is bytes:
        return data
    if isinstance(data, bytes):
        return bytes.__getitem__(data, _WHOLE)
    if isinstance(data, bytearray):
        return bytes(bytearray.__getitem__(data, _WHOLE))
    if not isinstance(data, str):
        try:
            with memoryview(data) as view:  # type: ignore[arg-type]
                return view.tobytes()
        except TypeError:
            pass
    bad_type(data, "a bytes-like object", name, where)


def exact_data(data: Data) -> Data:
    """``data`` with a ``str``, ``bytes`` or ``bytearray`` subclass copied to its exact
    base type (``str`` or ``bytes``); anything else unchanged, for the caller to judge."""
    if type(data) is str or type(data) is bytes:  # the usual case, first
        return data
    if isinstance(data, str) and type(data) is not str:
        return str.__getitem__(data, _WHOLE)  # type: ignore[return-value]
    if isinstance(data, bytes) and type(data) is not bytes:
        return bytes.__getitem__(data, _WHOLE)  # type: ignore[return-value]
    if isinstance(data, bytearray) and type(data) is not bytearray:
        return bytes(bytearray.__getitem__(data, _WHOLE))  # type: ignore[return-value]
    return data


def check_char(value: object, name: str, where: str) -> str:
    """``value`` when it is a str of exactly one character (as an exact str)."""
    text = exact_str(value, name, where)
    if len(text) != 1:
        raise ValueError(
            f"{where}() argument '{name}' must be exactly one character, not {len(text)}"
        )
    return text


def check_int(value: object, name: str, where: str) -> int:
    """``value`` as an exact int: an int, not a bool (TypeError)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        bad_type(value, "an int", name, where)
    return int.__int__(value)


__all__ = [
    "bad_type",
    "check_char",
    "check_choice",
    "check_count",
    "check_flag",
    "check_int",
    "choice_list",
    "exact_bytes",
    "exact_data",
    "exact_str",
    "type_name",
]
