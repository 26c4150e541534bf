"""Ready-made policies (TEXT, SINGLE_LINE, IDENTIFIER, FILENAME, SOURCE, PROMPT), by public name.

The profiles are defined in ``sanitizer._policy.profiles``, next to the model they are
made of, so the policy engine can default to ``TEXT`` without an import cycle; this
module re-exports them (the same objects: ``sanitizer.profiles.TEXT is
sanitizer._policy.profiles.TEXT``).
"""

from __future__ import annotations

from ._policy import profiles as defined_in
from ._policy.profiles import *  # noqa: F403 - the same names, listed once there

__all__ = defined_in.__all__
del defined_in
