"""utf8-sanitizer: strict RFC 3629 UTF-8 decoding with attack-grade diagnostics.

The core (this package's ``grammar``, ``decoder``, ``errors``) is pure and I/O-free: it
turns bytes into text or into precise, classified errors.  Policies and identifier
comparison build on it; the CLI, web middleware and fuzz targets are thin adapters.

Every public name is importable from here.  The core's are imported with the package;
the policy layer's are loaded on first use (PEP 562 ``__getattr__``), so
``import sanitizer._decoder``, or ``sanitizer check`` without ``--policy``, never loads the
policy layer and its generated tables.
"""

from __future__ import annotations

import importlib

from ._charnames import UNICODE_VERSION, describe
from ._decoder import (
    BACKEND,
    ErrorGrouper,
    IncrementalDecoder,
    decode,
    encode,
    find_errors,
    group_errors,
    is_valid,
)
from ._errors import BomError, EncodeError, ErrorKind, Utf8Error
from ._version import __version__ as __version__

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:  # what _POLICY_LAYER below gives, for type checkers and readers
    from typing import Any

    from . import precis, profiles, utf7, utf16, utf32
    from ._categories import Category
    from ._identifiers import identifiers_equal, normalize_identifier
    from ._lookalike import (
        ALL_SCRIPTS,
        IDENTIFIER_KEY_VERSION,
        UTS39_VERSION,
        Confusability,
        IdentifierStatus,
        IdentifierType,
        RestrictionLevel,
        confusable,
        hidden_overlays,
        identifier_key,
        identifier_status,
        identifier_types,
        mixed_numbers,
        resolved_scripts,
        restriction_level,
        script_extensions,
        script_name,
        skeleton,
    )
    from ._policy import (
        Action,
        Channel,
        Finding,
        Hidden,
        Policy,
        PolicyError,
        Reading,
        Report,
        inspect,
        reveal,
        sanitize,
    )
    from .utf7 import Utf7Error, Utf7ErrorKind
    from .utf16 import Utf16Error
    from .utf32 import Utf32Error
    from .wide import ByteOrderError, UnitErrorKind

# The policy layer's public names -> the module defining each (a submodule's own name:
# the submodule itself).  Loaded on first use, by __getattr__ below.
_POLICY_LAYER: dict[str, str] = {
    "Category": "sanitizer._categories",
    "Action": "sanitizer._policy",
    "Finding": "sanitizer._policy",
    "Policy": "sanitizer._policy",
    "PolicyError": "sanitizer._policy",
    "Report": "sanitizer._policy",
    "inspect": "sanitizer._policy",
    "sanitize": "sanitizer._policy",
    "reveal": "sanitizer._policy",  # hidden payloads in invisible characters
    "Hidden": "sanitizer._policy",
    "Channel": "sanitizer._policy",
    "Reading": "sanitizer._policy",
    "profiles": "sanitizer.profiles",
    "precis": "sanitizer.precis",  # RFC 8264, 8265, 8266
    "check_source": "sanitizer._source_gate",  # UTS #55: the source-code gate
    "identifiers_equal": "sanitizer._identifiers",
    "normalize_identifier": "sanitizer._identifiers",
    "ALL_SCRIPTS": "sanitizer._lookalike",
    "IDENTIFIER_KEY_VERSION": "sanitizer._lookalike",
    "UTS39_VERSION": "sanitizer._lookalike",
    "Confusability": "sanitizer._lookalike",
    "IdentifierStatus": "sanitizer._lookalike",
    "IdentifierType": "sanitizer._lookalike",
    "RestrictionLevel": "sanitizer._lookalike",
    "confusable": "sanitizer._lookalike",
    "hidden_overlays": "sanitizer._lookalike",
    "identifier_key": "sanitizer._lookalike",
    "identifier_status": "sanitizer._lookalike",
    "identifier_types": "sanitizer._lookalike",
    "mixed_numbers": "sanitizer._lookalike",
    "resolved_scripts": "sanitizer._lookalike",
    "restriction_level": "sanitizer._lookalike",
    "script_extensions": "sanitizer._lookalike",
    "script_name": "sanitizer._lookalike",
    "skeleton": "sanitizer._lookalike",
    "utf7": "sanitizer.utf7",  # UTF-7, RFC 2152
    "Utf7Error": "sanitizer.utf7",
    "Utf7ErrorKind": "sanitizer.utf7",
    "utf16": "sanitizer.utf16",  # strict UTF-16 / UTF-32
    "utf32": "sanitizer.utf32",
    "Utf16Error": "sanitizer.utf16",
    "Utf32Error": "sanitizer.utf32",
    "UnitErrorKind": "sanitizer.wide",
    "ByteOrderError": "sanitizer.wide",
}

__all__ = [
    "ALL_SCRIPTS",
    "BACKEND",
    "IDENTIFIER_KEY_VERSION",
    "UNICODE_VERSION",
    "UTS39_VERSION",
    "Action",
    "BomError",
    "ByteOrderError",
    "Category",
    "Channel",
    "Confusability",
    "EncodeError",
    "ErrorGrouper",
    "ErrorKind",
    "Finding",
    "Hidden",
    "IdentifierStatus",
    "IdentifierType",
    "IncrementalDecoder",
    "Policy",
    "PolicyError",
    "Reading",
    "Report",
    "RestrictionLevel",
    "UnitErrorKind",
    "Utf7Error",
    "Utf7ErrorKind",
    "Utf8Error",
    "Utf16Error",
    "Utf32Error",
    "check_source",
    "confusable",
    "decode",
    "describe",
    "encode",
    "find_errors",
    "group_errors",
    "hidden_overlays",
    "identifier_key",
    "identifier_status",
    "identifier_types",
    "identifiers_equal",
    "inspect",
    "is_valid",
    "mixed_numbers",
    "normalize_identifier",
    "precis",
    "profiles",
    "resolved_scripts",
    "restriction_level",
    "reveal",
    "sanitize",
    "script_extensions",
    "script_name",
    "skeleton",
    "utf7",
    "utf16",
    "utf32",
]


def __getattr__(name: str) -> Any:
    """Load a public name on first use, then keep it as a plain module attribute."""
    try:
        module_name = _POLICY_LAYER[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if module_name == f"{__name__}.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
