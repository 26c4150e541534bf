"""Look-alike identifiers: UTS #39 (Unicode Security Mechanisms) on Unicode 18.

Normalization (sanitizer._identifiers) decides when two strings are the same identifier;
this package decides when they *look* the same or mix scripts suspiciously:

* confusable detection (§4): ``skeleton``, ``confusable`` (skeletons.py);
* scripts (§5.1): ``script_extensions``, ``resolved_scripts``, ``script_name``
  (scripts.py);
* restriction levels and mixed numbers (§5.2, §5.3): ``restriction_level``,
  ``mixed_numbers`` (restriction.py);
* Identifier_Status / Identifier_Type (§3.1): ``identifier_status``, ``identifier_types``
  (status.py);
* hidden overlays (§5.4, ICU's rule): ``hidden_overlays`` (overlay.py);
* a unique-column key for names: ``identifier_key`` (key.py).

Data: confusables.txt, IdentifierStatus.txt, IdentifierType.txt (UTS #39 18.0.0) and
Scripts.txt, ScriptExtensions.txt (UCD 18.0.0), generated into ``_tables_data``, ``_skeletons_data``
and ``_confusables_data`` by tools/gen_lookalike.py; ``UTS39_VERSION`` names the version.  Every
function is pure, linear in its input and thread-safe.  The per-code-point lookups run in
C when the extension is built (sanitizer._native), with the same results as without it.
"""

from __future__ import annotations

from ._lookups import UTS39_VERSION
from .key import IDENTIFIER_KEY_VERSION, identifier_key
from .overlay import hidden_overlays
from .restriction import RestrictionLevel, mixed_numbers, restriction_level
from .scripts import ALL_SCRIPTS, resolved_scripts, script_extensions, script_name
from .skeletons import Confusability, confusable, skeleton
from .status import IdentifierStatus, IdentifierType, identifier_status, identifier_types

__all__ = [
    "ALL_SCRIPTS",
    "IDENTIFIER_KEY_VERSION",
    "UTS39_VERSION",
    "Confusability",
    "IdentifierStatus",
    "IdentifierType",
    "RestrictionLevel",
    "confusable",
    "hidden_overlays",
    "identifier_key",
    "identifier_status",
    "identifier_types",
    "mixed_numbers",
    "resolved_scripts",
    "restriction_level",
    "script_extensions",
    "script_name",
    "skeleton",
]
