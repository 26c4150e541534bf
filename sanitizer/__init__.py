"""utf8-sanitizer: strict RFC 3629 UTF-8 decoding with attack-grade diagnostics.

The core (this package's ``grammar``, ``decoder``, ``errors``) is pure and I/O-free: it
turns bytes into text or into precise, classified errors.  Policies and identifier
comparison build on it; the CLI, web middleware and fuzz targets are thin adapters.
"""

from __future__ import annotations

from . import profiles
from .chardata import Category
from .charinfo import UNICODE_VERSION, describe
from .decoder import (
    BACKEND,
    ErrorGrouper,
    IncrementalDecoder,
    decode,
    encode,
    find_errors,
    group_errors,
    is_valid,
)
from .errors import BomError, EncodeError, ErrorKind, Utf8Error
from .identifiers import identifiers_equal, normalize_identifier
from .policy import Action, Finding, Policy, PolicyError, Report, inspect, sanitize

__version__ = "0.1.0"

__all__ = [
    "BACKEND",
    "UNICODE_VERSION",
    "Action",
    "BomError",
    "Category",
    "EncodeError",
    "ErrorGrouper",
    "ErrorKind",
    "Finding",
    "IncrementalDecoder",
    "Policy",
    "PolicyError",
    "Report",
    "Utf8Error",
    "decode",
    "describe",
    "encode",
    "find_errors",
    "group_errors",
    "identifiers_equal",
    "inspect",
    "is_valid",
    "normalize_identifier",
    "profiles",
    "sanitize",
]
