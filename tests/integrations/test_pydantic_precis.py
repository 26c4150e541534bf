"""The PRECIS types of ``sanitizer.integrations.pydantic``: one ``Annotated[str, ...]`` per
profile of RFC 8265 and RFC 8266.  The type is an adapter, so its verdict is the
profile's for every input (Hypothesis, against ``enforce``); it adds the translation: the
enforced string as the value, a stable error type with the reason in its context, a JSON
schema.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pydantic = pytest.importorskip("pydantic")

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError  # noqa: E402

from sanitizer import precis  # noqa: E402
from sanitizer.integrations import pydantic as integration  # noqa: E402
from sanitizer.integrations.pydantic import (  # noqa: E402
    PRECIS_ERROR_TYPE,
    NicknameCaseMapped,
    OpaqueString,
    PrecisValidator,
    UsernameCaseMapped,
)

TYPES = (
    "UsernameCaseMapped",
    "UsernameCasePreserved",
    "OpaqueString",
    "NicknameCaseMapped",
    "NicknameCasePreserved",
)


class Signup(BaseModel):
    model_config = ConfigDict(hide_input_in_errors=True)

    username: UsernameCaseMapped
    display_name: NicknameCaseMapped
    password: OpaqueString
    handle: Annotated[str, PrecisValidator("UsernameCaseMapped:CaseFold")]


def test_the_fields_hold_the_enforced_strings() -> None:
    signup = Signup(
        username="\uff2aULIET",
        display_name="  Juliet   Capulet ",
        password="correct\u00a0horse",
        handle="Stra\u00dfe",
    )
    assert signup.model_dump() == {
        "username": "juliet",
        "display_name": "juliet capulet",
        "password": "correct horse",
        "handle": "strasse",
    }


def test_a_refusal_is_a_custom_error_with_the_reason() -> None:
    with pytest.raises(ValidationError) as caught:
        Signup(username="juliet\u202e", display_name="J", password="p", handle="j")
    (error,) = caught.value.errors()
    assert error["type"] == PRECIS_ERROR_TYPE
    assert error["loc"] == ("username",)
    context: dict[str, Any] = error["ctx"]
    assert (context["profile"], context["reason"], context["index"], context["code_point"]) == (
        "UsernameCaseMapped",
        "DISALLOWED/precis_ignorable_properties",
        6,
        0x202E,
    )
    assert error["msg"].startswith(
        "refused by PRECIS profile UsernameCaseMapped: U+202E RIGHT-TO-LEFT OVERRIDE at index 6"
    )


def test_a_refused_password_is_not_in_the_message() -> None:
    with pytest.raises(ValidationError) as caught:
        Signup(username="j", display_name="J", password="hunter2\x07", handle="j")
    assert "hunter" not in str(caught.value)
    assert "DISALLOWED/controls" in str(caught.value)


@pytest.mark.parametrize("name", TYPES)
def test_one_type_per_profile_and_its_schema(name: str) -> None:
    adapter = TypeAdapter(getattr(integration, name))
    assert adapter.validate_python("Juliet") == precis.get_profile(name).enforce("Juliet")
    assert adapter.json_schema() == {
        "type": "string",
        "description": f"enforced by the PRECIS profile {name} (RFC 8264 §7)",
    }


def test_the_validator_takes_profile_names_only() -> None:
    assert PrecisValidator("nicknamecasemapped").profile == "NicknameCaseMapped"
    assert repr(PrecisValidator()) == "PrecisValidator(profile='UsernameCaseMapped')"
    with pytest.raises(KeyError, match="the profiles are"):
        PrecisValidator("Username")
    with pytest.raises(TypeError, match="must be a PRECIS profile name, not int"):
        PrecisValidator(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", TYPES)
@given(s=st.text(max_size=8) | st.sampled_from(["Juliet", " a  b ", "\u05d0a", "\u2163"]))
def test_the_verdict_is_the_profiles(name: str, s: str) -> None:
    adapter = TypeAdapter(getattr(integration, name))
    profile = precis.get_profile(name)
    try:
        expected: str | None = profile.enforce(s)
    except precis.PrecisError:
        expected = None
    try:
        got: str | None = adapter.validate_python(s)
    except ValidationError as error:
        assert error.errors()[0]["type"] == PRECIS_ERROR_TYPE
        got = None
    assert got == expected
