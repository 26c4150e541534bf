"""A sanitizer policy as a pydantic v2 type: ``Annotated[str, IdentifierValidator(policy)]``;
a PRECIS profile (RFC 8265, RFC 8266) as one: ``Annotated[str, PrecisValidator(name)]``.

    from typing import Annotated
    from pydantic import BaseModel
    from sanitizer.integrations.pydantic import Identifier, IdentifierValidator
    from sanitizer.integrations.pydantic import NicknameCaseMapped, UsernameCaseMapped

    class Signup(BaseModel):
        username: Identifier                                    # profiles.IDENTIFIER
        handle: Annotated[str, IdentifierValidator(MY_POLICY)]  # any Policy
        login: UsernameCaseMapped                               # PRECIS, RFC 8265 §3.2
        display_name: NicknameCaseMapped                        # PRECIS, RFC 8266
        question: Prompt                                        # profiles.PROMPT

The value is first a ``str`` by pydantic's own rules, then ``inspect(value, policy)``
judges it.  Accepted: the field holds the policy's output (NFC for ``IDENTIFIER``), so
what is stored is what was checked.  Refused: a ``PydanticCustomError`` of type
``"sanitizer_identifier"`` (``ERROR_TYPE``, stable: match on it), whose message names the
first refusal ("mixed-script at 0..6: ...") and whose context carries the policy name,
the finding's category, start and end (code-point indices into the input).  The JSON
schema is a string with a description naming the policy.

``PrecisValidator(profile)`` does the same with ``sanitizer.precis``: the field holds
``profile.enforce(value)``; a refusal is error type ``"sanitizer_precis"``
(``PRECIS_ERROR_TYPE``) whose context carries the profile, precis-i18n's reason
("DISALLOWED/spaces"), the index and the code point.  One type per profile of RFC 8265
and RFC 8266: ``UsernameCaseMapped``, ``UsernameCasePreserved``, ``OpaqueString`` (a
password: the message names only the refused character, but pydantic's own error list
carries the input unless the model sets ``hide_input_in_errors=True``),
``NicknameCaseMapped``, ``NicknameCasePreserved``.  pydantic is optional: without
it, importing this module raises ImportError saying what to install.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

try:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import PydanticCustomError, core_schema
except ImportError as exc:  # pragma: no cover - exercised in a child interpreter
    raise ImportError(
        "sanitizer.integrations.pydantic needs pydantic v2: pip install 'pydantic>=2'"
    ) from exc

from .. import precis, profiles
from .._policy import Policy, inspect

__all__ = [
    "ERROR_TYPE",
    "PRECIS_ERROR_TYPE",
    "Identifier",
    "IdentifierValidator",
    "NicknameCaseMapped",
    "NicknameCasePreserved",
    "OpaqueString",
    "PrecisValidator",
    "Prompt",
    "UsernameCaseMapped",
    "UsernameCasePreserved",
]

ERROR_TYPE = "sanitizer_identifier"
PRECIS_ERROR_TYPE = "sanitizer_precis"


class _StrValidator:
    """What pydantic asks of a validator of ``str``: the value is a ``str`` by pydantic's
    own rules, then the validator's ``__call__`` gives the field's value; the JSON schema
    is a string described by ``describe()``."""

    def __call__(self, value: str) -> str:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def __get_pydantic_core_schema__(
        self, source_type: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self, core_schema.str_schema())

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.setdefault("description", self.describe())
        return json_schema


@dataclass(frozen=True)
class IdentifierValidator(_StrValidator):
    """Pydantic metadata checking a ``str`` with ``policy`` (``profiles.IDENTIFIER`` by
    default); the field's value becomes the policy's output."""

    policy: Policy = field(default=profiles.IDENTIFIER)

    def __post_init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise TypeError(
                "IdentifierValidator() argument 'policy' must be a sanitizer Policy, "
                f"not {type(self.policy).__name__}"
            )

    def __repr__(self) -> str:  # pydantic names the validator by it in error titles
        return f"IdentifierValidator(policy={self.policy.name!r})"

    def __call__(self, value: str) -> str:
        report = inspect(value, self.policy)
        if report.ok and report.text is not None:
            return report.text
        refused = report.rejections or report.findings
        first = refused[0] if refused else None
        context: dict[str, Any] = {
            "policy": self.policy.name,
            "finding": str(first) if first is not None else "rejected",
            "category": first.category.value if first is not None else None,
            "start": first.start if first is not None else None,
            "end": first.end if first is not None else None,
        }
        raise PydanticCustomError(
            ERROR_TYPE, "refused by sanitizer policy '{policy}': {finding}", context
        )

    def describe(self) -> str:
        about = f": {self.policy.description}" if self.policy.description else ""
        return f"checked by sanitizer policy {self.policy.name!r}{about}"


# A username, handle or tag, checked by profiles.IDENTIFIER.
Identifier = Annotated[str, IdentifierValidator()]

# Text headed to a language model, checked by profiles.PROMPT: a hidden payload (tag
# characters, variation-selector bytes, zero-width or bidi-mark bits) is refused, and the
# error's message says what it spelled (sanitizer.reveal).
Prompt = Annotated[str, IdentifierValidator(profiles.PROMPT)]


@dataclass(frozen=True)
class PrecisValidator(_StrValidator):
    """Pydantic metadata enforcing a ``str`` with a PRECIS profile (a name as
    ``sanitizer.precis.get_profile`` takes it); the field's value becomes the enforced
    string (RFC 8264 §7)."""

    profile: str = "UsernameCaseMapped"
    _profile: precis.Profile = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.profile, str):
            raise TypeError(
                "PrecisValidator() argument 'profile' must be a PRECIS profile name, "
                f"not {type(self.profile).__name__}"
            )
        found = precis.get_profile(self.profile)  # UnknownProfileError lists the names
        object.__setattr__(self, "_profile", found)
        object.__setattr__(self, "profile", found.name)

    def __repr__(self) -> str:
        return f"PrecisValidator(profile={self.profile!r})"

    def __call__(self, value: str) -> str:
        try:
            return self._profile.enforce(value)
        except precis.PrecisError as error:
            context: dict[str, Any] = {
                "profile": self.profile,
                "reason": error.reason,
                "index": error.index,
                "code_point": error.code_point,
                "detail": str(error),
            }
            raise PydanticCustomError(
                PRECIS_ERROR_TYPE, "refused by PRECIS profile {detail}", context
            ) from None

    def describe(self) -> str:
        return f"enforced by the PRECIS profile {self.profile} (RFC 8264 §7)"


# The PRECIS profiles of RFC 8265 (usernames, passwords) and RFC 8266 (nicknames).
UsernameCaseMapped = Annotated[str, PrecisValidator("UsernameCaseMapped")]
UsernameCasePreserved = Annotated[str, PrecisValidator("UsernameCasePreserved")]
OpaqueString = Annotated[str, PrecisValidator("OpaqueString")]
NicknameCaseMapped = Annotated[str, PrecisValidator("NicknameCaseMapped")]
NicknameCasePreserved = Annotated[str, PrecisValidator("NicknameCasePreserved")]
