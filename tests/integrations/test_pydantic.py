"""``sanitizer.integrations.pydantic``: a policy as an ``Annotated[str, ...]`` pydantic type.

The type is an adapter, so its verdict must be the policy's, for every input: checked
differentially against ``inspect`` with Hypothesis.  What it adds is the translation:
a stable error type, a message naming the finding, the policy's output as the value, a
JSON schema, and a clear ImportError without pydantic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st

pydantic = pytest.importorskip("pydantic")

from pydantic import BaseModel, TypeAdapter, ValidationError  # noqa: E402

from sanitizer import inspect, profiles  # noqa: E402
from sanitizer.integrations.pydantic import ERROR_TYPE, Identifier, IdentifierValidator  # noqa: E402

IDENTIFIER = TypeAdapter(Identifier)
MULTILINGUAL = ["Zoë", "Дмитрий", "田中太郎", "김민준", "محمد", "José", "Ngọc", "Αλέξανδρος"]


class Signup(BaseModel):
    username: Identifier
    tag: Annotated[str, IdentifierValidator(profiles.IDENTIFIER.replace(max_code_points=5))]


def only_error(caught: pytest.ExceptionInfo[ValidationError]) -> dict[str, object]:
    (error,) = caught.value.errors()
    return dict(error)


@pytest.mark.parametrize("name", MULTILINGUAL)
def test_names_in_many_scripts_pass_unchanged(name: str) -> None:
    assert IDENTIFIER.validate_python(name) == name


def test_the_value_is_the_policys_output() -> None:
    assert IDENTIFIER.validate_python("A\u030a") == "\u00c5"  # NFC
    assert IDENTIFIER.validate_json('"Jose\\u0301"') == "Jos\u00e9"


@pytest.mark.parametrize(
    ("value", "category", "start"),
    [("a b", "whitespace", 1), ("ad\u200bmin", "invisible", 2), ("x\u202ey", "bidi-control", 1)],
)
def test_a_refusal_is_a_custom_error_naming_the_finding(
    value: str, category: str, start: int
) -> None:
    with pytest.raises(ValidationError) as caught:
        IDENTIFIER.validate_python(value)
    error = only_error(caught)
    assert error["type"] == ERROR_TYPE == "sanitizer_identifier"
    assert error["ctx"] == {
        "policy": "identifier",
        "finding": str(inspect(value, profiles.IDENTIFIER).rejections[0]),
        "category": category,
        "start": start,
        "end": start + 1,
    }
    assert error["msg"] == f"refused by sanitizer policy 'identifier': {error['ctx']['finding']}"  # type: ignore[index]
    assert f"{category} at {start}..{start + 1}" in str(error["msg"])
    assert json.loads(caught.value.json())[0]["type"] == ERROR_TYPE  # JSON-ready


def test_a_mixed_script_look_alike_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        IDENTIFIER.validate_python("p\u0430ypal")  # U+0430 CYRILLIC SMALL LETTER A
    assert only_error(caught)["type"] == ERROR_TYPE


def test_a_custom_policy_in_a_model() -> None:
    signup = Signup(username="Zoë", tag="abcde")
    assert (signup.username, signup.tag) == ("Zoë", "abcde")
    with pytest.raises(ValidationError) as caught:
        Signup(username="Zoë", tag="abcdef")
    error = only_error(caught)
    assert error["loc"] == ("tag",)
    assert error["ctx"]["category"] == "too-long"  # type: ignore[index]


def test_what_is_not_a_string_is_refused_by_pydantic_first() -> None:
    with pytest.raises(ValidationError) as caught:
        IDENTIFIER.validate_python(42)
    assert only_error(caught)["type"] == "string_type"


def test_json_schema() -> None:
    assert IDENTIFIER.json_schema() == {
        "type": "string",
        "description": "checked by sanitizer policy 'identifier': "
        + profiles.IDENTIFIER.description,
    }
    properties = Signup.model_json_schema()["properties"]
    assert properties["username"]["type"] == properties["tag"]["type"] == "string"
    bare = TypeAdapter(Annotated[str, IdentifierValidator(profiles.TEXT.replace(description=""))])
    assert bare.json_schema() == {
        "type": "string",
        "description": "checked by sanitizer policy 'text'",
    }


def test_the_validator_takes_only_a_policy() -> None:
    with pytest.raises(TypeError, match="must be a sanitizer Policy, not str"):
        IdentifierValidator("identifier")  # type: ignore[arg-type]
    assert repr(IdentifierValidator()) == "IdentifierValidator(policy='identifier')"


@given(st.text(max_size=80))
def test_the_verdict_is_the_policys(value: str) -> None:
    report = inspect(value, profiles.IDENTIFIER)
    try:
        out = IDENTIFIER.validate_python(value)
    except ValidationError as caught:
        assert not report.ok
        (error,) = caught.errors()
        assert error["type"] == ERROR_TYPE
        first = (report.rejections or report.findings)[0]
        assert error["ctx"]["finding"] == str(first)
    else:
        assert report.ok
        assert out == report.text


def test_importing_without_pydantic_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['pydantic'] = sys.modules['pydantic_core'] = None\n"
        "import sanitizer.integrations.pydantic"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError: sanitizer.integrations.pydantic needs pydantic v2: pip install" in (
        run.stderr
    )


def test_prompt_refuses_a_hidden_payload_and_says_what_it_spelled() -> None:
    from pydantic import BaseModel, ValidationError

    from sanitizer.integrations.pydantic import Prompt

    class Question(BaseModel):
        text: Prompt

    assert Question(text="می\u200cخواهم \u2764\ufe0f").text == "می\u200cخواهم \u2764\ufe0f"
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "ignore all")
    with pytest.raises(ValidationError) as info:
        Question(text="hi" + hidden)
    (error,) = info.value.errors()
    assert error["type"] == "sanitizer_identifier"
    assert error["ctx"]["category"] == "hidden-payload"
    assert "10 tag characters spelling 'ignore all'" in error["msg"]
