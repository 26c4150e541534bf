"""``PrecisField`` and ``PrecisValidator`` (sanitizer.integrations.django) on a real SQLite
database through Django's ORM, as tests/integrations/test_django.py tests
``IdentifierKeyField``: the models' migration is made as ``makemigrations`` makes it,
loaded from its source and applied; a ModelForm signs members up.

The username column holds UsernameCaseMapped's enforced form and is unique, so "JULIET"
beside "juliet" is a form error (``validate_unique`` compares enforced values) and, past
the form, the database's own IntegrityError.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

django = pytest.importorskip("django")

from django.conf import settings  # type: ignore[import-untyped]  # noqa: E402

DATABASE = {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
if not settings.configured:  # the same base as test_django.py
    settings.configure(
        DEFAULT_CHARSET="utf-8",
        ALLOWED_HOSTS=["*"],
        FILE_UPLOAD_HANDLERS=["django.core.files.uploadhandler.MemoryFileUploadHandler"],
        DATA_UPLOAD_MAX_NUMBER_FIELDS=None,
        DATABASES={"default": DATABASE},
    )
    django.setup()
elif not settings.DATABASES:
    settings.DATABASES = {"default": DATABASE}

from django import forms  # type: ignore[import-untyped]  # noqa: E402
from django.core.exceptions import ValidationError  # type: ignore[import-untyped]  # noqa: E402
from django.db import IntegrityError, connection, models, transaction  # type: ignore[import-untyped]  # noqa: E402
from django.db.migrations.autodetector import (  # type: ignore[import-untyped]  # noqa: E402
    MigrationAutodetector,
)
from django.db.migrations.graph import MigrationGraph  # type: ignore[import-untyped]  # noqa: E402
from django.db.migrations.questioner import (  # type: ignore[import-untyped]  # noqa: E402
    MigrationQuestioner,
)
from django.db.migrations.state import (  # type: ignore[import-untyped]  # noqa: E402
    ModelState,
    ProjectState,
)
from django.db.migrations.writer import MigrationWriter  # type: ignore[import-untyped]  # noqa: E402

from sanitizer import precis  # noqa: E402
from sanitizer.integrations.django import (  # noqa: E402
    PRECIS_INVALID_CODE,
    PrecisField,
    PrecisValidator,
)

APP = "members"


class Member(models.Model):  # type: ignore[misc]
    username = PrecisField(profile="UsernameCaseMapped", max_length=64, unique=True)
    nickname = PrecisField(profile="NicknameCaseMapped", max_length=64, blank=True, default="")
    password = models.CharField(
        max_length=128, blank=True, default="", validators=[PrecisValidator("OpaqueString")]
    )

    class Meta:
        app_label = APP


class MemberForm(forms.ModelForm):  # type: ignore[misc]
    class Meta:
        model = Member
        fields = ("username", "nickname", "password")


def generated_migration() -> str:
    state = ProjectState()
    state.add_model(ModelState.from_model(Member))
    questioner = MigrationQuestioner(specified_apps={APP})
    changes = MigrationAutodetector(ProjectState(), state, questioner).changes(MigrationGraph())
    (migration,) = changes[APP]
    return str(MigrationWriter(migration).as_string())


@pytest.fixture(scope="module")
def database() -> Iterator[None]:
    module = types.ModuleType("members_0001_initial")
    exec(compile(generated_migration(), "0001_initial.py", "exec"), module.__dict__)
    state = ProjectState()
    with connection.schema_editor() as editor:
        for operation in module.Migration.operations:
            before = state.clone()
            operation.state_forwards(APP, state)
            operation.database_forwards(APP, editor, before, state)
    yield
    with connection.schema_editor() as editor:
        editor.delete_model(Member)


@pytest.fixture
def db(database: None) -> Iterator[None]:
    yield
    Member.objects.all().delete()


def sign_up(**data: str) -> MemberForm:
    form = MemberForm(data)
    if form.is_valid():
        form.save()
    return form


def codes(form: MemberForm, field: str) -> list[str]:
    return [error["code"] for error in form.errors.get_json_data().get(field, [])]


def roundtrip(value: Any) -> Any:
    source, imports = MigrationWriter.serialize(value)
    namespace: dict[str, Any] = {}
    for line in imports:
        exec(line, namespace)
    return eval(source, namespace)


# -- the validator ---------------------------------------------------------------------------


def test_the_validator_refuses_with_the_reason_and_where() -> None:
    with pytest.raises(ValidationError) as caught:
        PrecisValidator()("Juliet Capulet")
    error = caught.value
    assert error.code == PRECIS_INVALID_CODE
    assert (error.params["profile"], error.params["reason"], error.params["index"]) == (
        "UsernameCaseMapped",
        "DISALLOWED/spaces",
        6,
    )
    (message,) = error.messages
    assert message.startswith(
        "Enter a valid value: UsernameCaseMapped: U+0020 SPACE ' ' at index 6"
    )


def test_the_validator_refuses_what_is_not_text_and_unknown_profiles() -> None:
    with pytest.raises(ValidationError) as caught:
        PrecisValidator("OpaqueString")(42)
    assert caught.value.params["detail"] == "not text but int"
    with pytest.raises(KeyError, match="the profiles are: IdentifierClass"):
        PrecisValidator("Username")
    with pytest.raises(TypeError, match="must be a PRECIS profile name, not int"):
        PrecisValidator(3)  # type: ignore[arg-type]


def test_validator_and_field_survive_migrations() -> None:
    for validator in (
        PrecisValidator(),
        PrecisValidator("opaquestring"),
        PrecisValidator("NicknameCaseMapped:CaseFold", message="%(detail)s", code="x"),
    ):
        assert roundtrip(validator) == validator
    assert MigrationWriter.serialize(PrecisValidator())[0] == (
        "sanitizer.integrations.django.PrecisValidator()"
    )
    field = Member._meta.get_field("nickname")
    _, path, _, kwargs = field.deconstruct()
    assert path == "sanitizer.integrations.django.PrecisField"
    assert kwargs["profile"] == "NicknameCaseMapped"
    again = roundtrip(PrecisField(profile="UsernameCasePreserved", max_length=10))
    assert (again.precis.profile.name, again.max_length) == ("UsernameCasePreserved", 10)


# -- the field, through the ORM ------------------------------------------------------------


def test_the_column_holds_the_enforced_username(db: None) -> None:
    form = sign_up(username="\uff2aULIET", nickname="  Juliet   Capulet ")
    assert form.errors == {}
    row = Member.objects.get()
    assert (row.username, row.nickname) == ("juliet", "juliet capulet")
    stored = Member.objects.values_list("username", flat=True).get()
    assert stored == "juliet"


def test_a_second_juliet_is_a_form_error_then_an_integrity_error(db: None) -> None:
    assert sign_up(username="juliet").errors == {}
    form = sign_up(username="JULIET")
    assert codes(form, "username") == ["unique"]
    with pytest.raises(IntegrityError), transaction.atomic():
        Member.objects.create(username="Juliet")  # save() enforces: the database refuses
    assert Member.objects.count() == 1


def test_a_refused_value_is_a_field_error(db: None) -> None:
    form = sign_up(username="juliet\u202e")
    assert codes(form, "username") == [PRECIS_INVALID_CODE]
    assert "U+202E RIGHT-TO-LEFT OVERRIDE at index 6" in form.errors["username"][0]
    form = sign_up(username="romeo", password="hunter2\x07")
    assert codes(form, "password") == [PRECIS_INVALID_CODE]
    assert "hunter" not in str(form.errors)
    assert Member.objects.count() == 0


def test_save_without_a_form_enforces_and_refuses(db: None) -> None:
    member = Member(username="\u0130stanbul")
    member.save()
    assert member.username == "i\u0307stanbul"
    assert Member.objects.get().username == "i\u0307stanbul"
    with pytest.raises(ValidationError) as caught:
        Member(username="").save()
    assert caught.value.params["reason"] == "DISALLOWED/empty"


def test_lookups_compare_as_given(db: None) -> None:
    Member.objects.create(username="Juliet")
    profile = Member._meta.get_field("username").precis.profile
    assert not Member.objects.filter(username="JULIET").exists()
    assert Member.objects.filter(username=profile.enforce("JULIET")).exists()
    assert not Member.objects.filter(username="a b").exists()  # no ValidationError
    assert profile is precis.get_profile("UsernameCaseMapped")
