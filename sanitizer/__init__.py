"""utf8-sanitizer: strict RFC 3629 UTF-8 decoding with attack-grade diagnostics.

The core (``_grammar``, ``_decoder``, ``_errors``) is pure and I/O-free: it turns bytes
into text or into precise, classified errors.  Policies and identifier comparison build
on it; the CLI, web middleware and fuzz targets are thin adapters.

Every public name is importable from here, and ``_PUBLIC`` below is the one list of them:
``__all__`` is its keys and the type stub ``__init__.pyi`` is generated from it
(``tools/gen_public.py``), so the three cannot drift.  The core's names are imported with
the package; the policy layer's are loaded on first use (PEP 562 ``__getattr__``), so
``import sanitizer``, or ``sanitizer check`` without ``--policy``, never loads the policy
layer and its generated tables.  Modules whose name starts with an underscore are
internal (docs/design.md); the old paths of the ones that moved still import, with a
DeprecationWarning, for one release (``_moved``).
"""

from __future__ import annotations

import importlib

# The core's names load with the package, the others (below) on first use; these imports
# are the table's entries for the core's modules, no more, no less (tests/suites/test_public.py).
from ._charnames import UNICODE_VERSION, describe  # noqa: F401
from ._decoder import (  # noqa: F401
    BACKEND,
    ErrorGrouper,
    IncrementalDecoder,
    decode,
    encode,
    find_errors,
    group_errors,
    is_valid,
)
from ._errors import BomError, EncodeError, ErrorKind, Utf8Error  # noqa: F401
from ._version import __version__ as __version__

# Every public name -> the module defining it (a submodule's own name: the submodule
# itself).
_PUBLIC: dict[str, str] = {
    # the strict decoder, RFC 3629
    "decode": "sanitizer._decoder",
    "is_valid": "sanitizer._decoder",
    "find_errors": "sanitizer._decoder",
    "group_errors": "sanitizer._decoder",
    "ErrorGrouper": "sanitizer._decoder",
    "IncrementalDecoder": "sanitizer._decoder",
    "encode": "sanitizer._decoder",
    "BACKEND": "sanitizer._decoder",
    "Utf8Error": "sanitizer._errors",
    "ErrorKind": "sanitizer._errors",
    "BomError": "sanitizer._errors",
    "EncodeError": "sanitizer._errors",
    "describe": "sanitizer._charnames",
    "UNICODE_VERSION": "sanitizer._charnames",
    # policies
    "Category": "sanitizer._categories",
    "Action": "sanitizer._policy",
    "BASELINE": "sanitizer._policy",
    "Finding": "sanitizer._policy",
    "Policy": "sanitizer._policy",
    "PolicyError": "sanitizer._policy",
    "Report": "sanitizer._policy",
    "inspect": "sanitizer._policy",
    "sanitize": "sanitizer._policy",
    "accepts": "sanitizer._policy",
    "reveal": "sanitizer._policy",  # hidden payloads in invisible characters
    "Hidden": "sanitizer._policy",
    "Channel": "sanitizer._policy",
    "Reading": "sanitizer._policy",
    "profiles": "sanitizer.profiles",
    "check_source": "sanitizer._source_gate",  # UTS #55: the source-code gate
    # identifiers: normalization, UTS #39, PRECIS (RFC 8264, 8265, 8266)
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
    "precis": "sanitizer.precis",
    # other encodings: UTF-7 (RFC 2152), strict UTF-16 / UTF-32
    "utf7": "sanitizer.utf7",
    "Utf7Error": "sanitizer.utf7",
    "Utf7ErrorKind": "sanitizer.utf7",
    "utf16": "sanitizer.utf16",
    "utf32": "sanitizer.utf32",
    "Utf16Error": "sanitizer.utf16",
    "Utf32Error": "sanitizer.utf32",
    "UnitErrorKind": "sanitizer._wide",
    "ByteOrderError": "sanitizer._wide",
}
__all__ = list(_PUBLIC)


def __getattr__(name: str) -> object:
    """Load a public name on first use, then keep it as a plain module attribute."""
    try:
        module_name = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if module_name == f"{__name__}.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
