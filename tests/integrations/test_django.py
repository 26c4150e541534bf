"""``sanitizer.integrations.django`` on a real SQLite database through Django's ORM.

The models below are turned into a migration the way ``makemigrations`` does (the
autodetector, then ``MigrationWriter``), that migration's source is loaded and applied
to an in-memory SQLite database, and a signup ModelForm and view are run against it:
a look-alike of an existing username ("pаypal", "arnazon") is a form error, never an
IntegrityError; legitimate names in many scripts sign up side by side.
"""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

django = pytest.importorskip("django")

from django.conf import settings  # type: ignore[import-untyped]  # noqa: E402

DATABASE = {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
if not settings.configured:  # the same base as tests/web/test_django.py, plus a database
    settings.configure(
        DEFAULT_CHARSET="utf-8",
        ALLOWED_HOSTS=["*"],
        FILE_UPLOAD_HANDLERS=["django.core.files.uploadhandler.MemoryFileUploadHandler"],
        DATA_UPLOAD_MAX_NUMBER_FIELDS=None,
        DATABASES={"default": DATABASE},
    )
    django.setup()
elif not settings.DATABASES:  # configured by another test module, without a database
    settings.DATABASES = {"default": DATABASE}

from django import forms  # type: ignore[import-untyped]  # noqa: E402
from django.core.exceptions import ValidationError  # type: ignore[import-untyped]  # noqa: E402
from django.db import connection, models  # type: ignore[import-untyped]  # noqa: E402
from django.db.migrations.autodetector import (  # type: ignore[import-untyped]  # noqa: E402
    MigrationAutodetector,
)
from django.db.migrations.graph import MigrationGraph  # type: ignore[import-untyped]  # noqa: E402
from django.db.migrations.operations import RunPython  # type: ignore[import-untyped]  # noqa: E402
from django.db.migrations.questioner import (  # type: ignore[import-untyped]  # noqa: E402
    MigrationQuestioner,
)
from django.db.migrations.state import (  # type: ignore[import-untyped]  # noqa: E402
    ModelState,
    ProjectState,
)
from django.db.migrations.writer import MigrationWriter  # type: ignore[import-untyped]  # noqa: E402
from django.http import HttpRequest, JsonResponse  # type: ignore[import-untyped]  # noqa: E402
from django.test import Client, override_settings  # type: ignore[import-untyped]  # noqa: E402
from django.urls import path  # type: ignore[import-untyped]  # noqa: E402

from sanitizer import IDENTIFIER_KEY_VERSION, identifier_key, profiles  # noqa: E402
from sanitizer.integrations.django import (  # noqa: E402
    INVALID_CODE,
    REKEY_PREFIX,
    TAKEN_CODE,
    IdentifierKeyField,
    IdentifierValidator,
    UniqueIdentifierKeys,
    rekey,
    save_unique,
)
from tests.support.settings import examples  # noqa: E402

APP = "signup"
MULTILINGUAL = ["Zoë", "Дмитрий", "田中太郎", "김민준", "محمد", "José", "Ngọc", "Αλέξανδρος"]
PAYPAL_CYRILLIC_A = "p\u0430ypal"  # U+0430 CYRILLIC SMALL LETTER A: mixed-script

# -- the app ---------------------------------------------------------------------------------


class Account(UniqueIdentifierKeys, models.Model):  # type: ignore[misc]
    username = models.CharField(max_length=64, validators=[IdentifierValidator()])
    username_key = IdentifierKeyField(source="username", version_field="key_version")
    key_version = models.CharField(max_length=32, editable=False, default="")
    email = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        app_label = APP


class KeyOnly(UniqueIdentifierKeys, models.Model):  # type: ignore[misc]
    """The key check alone: no policy validator on the name."""

    name = models.CharField(max_length=64)
    name_key = IdentifierKeyField(source="name")

    class Meta:
        app_label = APP


class Miswired(models.Model):  # type: ignore[misc]
    """Fails the system checks: an unknown source, a version field before the key."""

    version = models.CharField(max_length=32)
    key = IdentifierKeyField(source="nickname", version_field="version")

    class Meta:
        app_label = "signup_checks"


class SignupForm(forms.ModelForm):  # type: ignore[misc]
    class Meta:
        model = Account
        fields = ("username", "email")


def signup_view(request: HttpRequest) -> JsonResponse:
    form = SignupForm(request.POST)
    if form.is_valid():
        account = save_unique(form)
        if account is not None:
            return JsonResponse({"id": account.pk, "username": account.username}, status=201)
    return JsonResponse({"errors": form.errors.get_json_data()}, status=400)


urlpatterns = [path("signup", signup_view)]

# -- the database: a migration made and applied as makemigrations/migrate would ----------


def generated_migration() -> str:
    """The source of the migration ``makemigrations`` would write for APP's models."""
    state = ProjectState()
    for model in (Account, KeyOnly):
        state.add_model(ModelState.from_model(model))
    questioner = MigrationQuestioner(specified_apps={APP})  # as `makemigrations signup`
    changes = MigrationAutodetector(ProjectState(), state, questioner).changes(MigrationGraph())
    (migration,) = changes[APP]
    return str(MigrationWriter(migration).as_string())


@pytest.fixture(scope="module")
def database() -> Iterator[None]:
    source = generated_migration()
    module = types.ModuleType("signup_0001_initial")
    exec(compile(source, "0001_initial.py", "exec"), module.__dict__)
    state = ProjectState()
    with connection.schema_editor() as editor:
        for operation in module.Migration.operations:
            before = state.clone()
            operation.state_forwards(APP, state)
            operation.database_forwards(APP, editor, before, state)
    yield
    with connection.schema_editor() as editor:
        editor.delete_model(Account)
        editor.delete_model(KeyOnly)


@pytest.fixture
def db(database: None) -> Iterator[None]:
    yield
    Account.objects.all().delete()
    KeyOnly.objects.all().delete()


def signup(username: str, **extra: str) -> SignupForm:
    form = SignupForm({"username": username, **extra})
    if form.is_valid():
        save_unique(form)
    return form


def codes(form: SignupForm, field: str = "username") -> list[str]:
    return [error["code"] for error in form.errors.get_json_data().get(field, [])]


# -- the validator ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", MULTILINGUAL)
def test_validator_accepts_names_in_many_scripts(name: str) -> None:
    IdentifierValidator()(name)


@pytest.mark.parametrize(
    ("value", "category"),
    [("a b", "whitespace"), ("ad\u200bmin", "invisible"), ("x\u202ey", "bidi-control")],
)
def test_validator_refuses_with_a_code_and_the_finding(value: str, category: str) -> None:
    with pytest.raises(ValidationError) as caught:
        IdentifierValidator()(value)
    error = caught.value
    assert error.code == INVALID_CODE
    assert error.params["category"] == category
    assert error.params["policy"] == "identifier"
    (message,) = error.messages
    assert message.startswith(f"Enter a valid identifier: {category} at ")


def test_validator_refuses_a_mixed_script_name() -> None:
    with pytest.raises(ValidationError) as caught:
        IdentifierValidator()(PAYPAL_CYRILLIC_A)
    assert caught.value.code == INVALID_CODE


def test_validator_takes_a_profile_name_a_dotted_path_or_a_policy() -> None:
    short = profiles.IDENTIFIER.replace(name="short", max_code_points=4)
    sys.modules[__name__].SHORT = short  # type: ignore[attr-defined]
    for policy in (short, f"{__name__}.SHORT"):
        validator = IdentifierValidator(policy, message="no: %(finding)s", code="bad_name")
        validator("abcd")
        with pytest.raises(ValidationError) as caught:
            validator("abcde")
        assert caught.value.code == "bad_name"
        assert caught.value.messages[0].startswith("no: too-long")
    IdentifierValidator("TEXT")("a b")  # profile names as profiles.get() takes them
    with pytest.raises(ValueError, match="unknown profile"):
        IdentifierValidator("nope")
    with pytest.raises(TypeError, match="is a str, not a Policy"):
        IdentifierValidator("sanitizer.UNICODE_VERSION")
    with pytest.raises(TypeError, match="must be a Policy"):
        IdentifierValidator(3)  # type: ignore[arg-type]


def test_validator_refuses_what_is_not_text() -> None:
    with pytest.raises(ValidationError) as caught:
        IdentifierValidator()(42)
    assert caught.value.params["finding"] == "not text but int"


def roundtrip(value: Any) -> Any:
    """``value`` written as a migration writes it, then evaluated back."""
    source, imports = MigrationWriter.serialize(value)
    namespace: dict[str, Any] = {}
    for line in imports:
        exec(line, namespace)
    return eval(source, namespace)


def test_validators_survive_migrations() -> None:
    sys.modules[__name__].SHORT = profiles.IDENTIFIER.replace(max_code_points=4)  # type: ignore[attr-defined]
    for validator in (
        IdentifierValidator(),
        IdentifierValidator(profiles.TEXT),  # a profile object is written by its name
        IdentifierValidator("single-line", message="%(finding)s", code="x"),
        IdentifierValidator(f"{__name__}.SHORT"),
    ):
        assert roundtrip(validator) == validator
    assert MigrationWriter.serialize(IdentifierValidator())[0] == (
        "sanitizer.integrations.django.IdentifierValidator()"
    )
    with pytest.raises(ValueError, match="pass its dotted path instead"):
        MigrationWriter.serialize(IdentifierValidator(profiles.IDENTIFIER.replace(name="x")))


def test_key_field_survives_migrations() -> None:
    field = Account._meta.get_field("username_key")
    assert field.deconstruct()[1:] == (
        "sanitizer.integrations.django.IdentifierKeyField",
        [],
        {"source": "username", "version_field": "key_version"},
    )
    other = IdentifierKeyField(source="n", max_length=300, unique=False, editable=True)
    again = roundtrip(other)
    assert (again.max_length, again.unique, again.editable, again.source) == (300, False, True, "n")


def test_the_migration_is_stable() -> None:
    """Made from the models, the migration needs no further change: validators compare
    equal, so makemigrations finds nothing to alter."""
    source = generated_migration()
    assert "sanitizer.integrations.django.IdentifierKeyField(source='username'" in source
    assert "sanitizer.integrations.django.UniqueIdentifierKeys" in source  # a base
    before, after = ProjectState(), ProjectState()
    for model in (Account, KeyOnly):
        before.add_model(ModelState.from_model(model))
        after.add_model(ModelState.from_model(model))
    assert MigrationAutodetector(before, after).changes(graph=MigrationGraph()) == {}


def test_system_checks_name_a_miswired_key_field() -> None:
    ids = sorted(error.id for error in Miswired.check())
    assert ids == ["sanitizer.E001", "sanitizer.E002"]
    assert Account.check() == []


# -- the signup form on SQLite --------------------------------------------------------------


def test_a_look_alike_of_an_existing_name_is_a_form_error(db: None) -> None:
    assert signup("paypal").errors == {}
    form = signup(PAYPAL_CYRILLIC_A)
    assert not form.is_valid()
    assert codes(form) in ([INVALID_CODE], [TAKEN_CODE])
    for look_alike in ("PayPal", "PAYPAL"):  # the same name to a reader: the key is casefolded
        form = signup(look_alike)
        assert codes(form) == [TAKEN_CODE]
        assert form.errors["username"] == [
            "This username is already taken, or looks like one that is."
        ]
    assert list(Account.objects.values_list("username", flat=True)) == ["paypal"]


def test_the_key_alone_refuses_look_alikes(db: None) -> None:
    """Without a policy validator the unique key still refuses "pаypal" and "arnazon"
    ("rn" looks like "m": UTS #39 confusables.txt maps U+006D to "rn")."""
    KeyOnly.objects.create(name="paypal")
    KeyOnly.objects.create(name="amazon")
    for look_alike in (PAYPAL_CYRILLIC_A, "arnazon"):
        with pytest.raises(ValidationError) as caught:
            KeyOnly(name=look_alike).full_clean()
        assert [e.code for e in caught.value.error_dict["name"]] == [TAKEN_CODE]
    assert identifier_key("arnazon") == identifier_key("amazon")


def test_legitimate_names_in_many_scripts_sign_up_side_by_side(db: None) -> None:
    for name in MULTILINGUAL:
        form = signup(name)
        assert form.errors == {}, name
    stored = list(Account.objects.order_by("pk").values_list("username", "username_key"))
    assert [name for name, _ in stored] == MULTILINGUAL
    assert [key for _, key in stored] == [identifier_key(name) for name in MULTILINGUAL]
    assert len({key for _, key in stored}) == len(MULTILINGUAL)
    assert set(Account.objects.values_list("key_version", flat=True)) == {IDENTIFIER_KEY_VERSION}


def test_editing_keeps_ones_own_name_and_refuses_anothers(db: None) -> None:
    signup("amazon")
    signup("Zoë")
    zoe = Account.objects.get(username="Zoë")
    form = SignupForm({"username": "ZOË", "email": "z@example.org"}, instance=zoe)
    assert form.is_valid(), form.errors  # its own key: no collision with itself
    form.save()
    form = SignupForm({"username": "arnazon"}, instance=zoe)
    assert codes(form) == [TAKEN_CODE]


def test_a_concurrent_signup_is_a_form_error_not_an_integrity_error(db: None) -> None:
    """The race validation cannot see: the form is valid, then another request stores a
    look-alike before this one saves.  The database's unique key refuses the save and
    save_unique() reports it on the form."""
    form = SignupForm({"username": "amazon"})
    assert form.is_valid()
    Account.objects.create(username="arnazon")  # the other request, committed meanwhile
    assert save_unique(form) is None
    assert codes(form) == [TAKEN_CODE]
    assert Account.objects.count() == 1


def test_keys_follow_every_kind_of_save(db: None) -> None:
    account = Account.objects.create(username="first")
    account.username = "Second"
    account.save(update_fields=["username"])
    account.refresh_from_db()
    assert account.username_key == identifier_key("Second")
    assert account.key_version == IDENTIFIER_KEY_VERSION
    Account.objects.bulk_create([Account(username="third")])
    assert Account.objects.get(username="third").username_key == identifier_key("third")


def test_rekey_rewrites_stale_keys_even_when_they_swap(db: None) -> None:
    """Keys written by an older release: two rows hold each other's new key, one is
    current already.  rekey() frees the old keys first, so the unique column never sees
    a duplicate, and writes every new key with the current version."""
    for name in ("amazon", "paypal", "Zoë"):
        Account.objects.create(username=name)
    swapped = [
        ("amazon", "-"),
        ("paypal", identifier_key("amazon")),
        ("amazon", identifier_key("paypal")),
    ]
    for name, old_key in swapped:
        Account.objects.filter(username=name).update(username_key=old_key, key_version="0")
    assert rekey(Account, "username_key", batch_size=1) == []
    assert sorted(Account.objects.values_list("username", "username_key", "key_version")) == [
        (name, identifier_key(name), IDENTIFIER_KEY_VERSION) for name in ("Zoë", "amazon", "paypal")
    ]


def migration_state() -> ProjectState:
    """The project state after the generated migration (as ``migrate`` builds it)."""
    module = types.ModuleType("signup_0001_initial")
    exec(compile(generated_migration(), "0001_initial.py", "exec"), module.__dict__)
    state = ProjectState()
    for operation in module.Migration.operations:
        operation.state_forwards(APP, state)
    return state


def run_data_migration(code: Any) -> None:
    """``code(apps, schema_editor)`` as a data migration's RunPython runs it."""
    state = migration_state()
    with connection.schema_editor(atomic=True) as editor:
        RunPython(code).database_forwards(APP, editor, state, state)


def test_rekey_in_a_data_migration_survives_names_that_look_like_its_placeholder(
    db: None,
) -> None:
    """rekey() frees each stale key by writing a placeholder into the unique column.  An
    older placeholder was the text "\\uffffrekey <pk>" (a backslash and five letters),
    which a display name typed literally keys to: the migration then died with "UNIQUE
    constraint failed".  The placeholder now holds "R", which no key contains (every
    character of a key is its own key: tests/identifiers/test_lookalike.py), so no row can
    hold it."""
    stale = [Account.objects.create(username=name) for name in ("alpha", "beta", "gamma")]
    for row in stale:  # names typed to look like each stale row's placeholder, kept current
        for name in (
            f"\\uffffrekey {row.pk}",  # the older placeholder, as text: its key is itself
            f"{REKEY_PREFIX}{row.pk}",  # the placeholder typed: its key is folded
            f"\uffff{REKEY_PREFIX}{row.pk} ",
        ):
            current = Account.objects.create(username=name)
            assert current.username_key != f"{REKEY_PREFIX}{row.pk}"
    for row in stale:  # keys of an older release
        Account.objects.filter(pk=row.pk).update(username_key=f"-{row.pk}", key_version="old")

    def migrate(apps: Any, schema_editor: Any) -> None:
        model = apps.get_model(APP, "Account")
        assert rekey(model, "username_key", batch_size=2) == []

    run_data_migration(migrate)
    stored = Account.objects.values_list("username", "username_key", "key_version")
    assert sorted(stored) == sorted(
        (name, identifier_key(name), IDENTIFIER_KEY_VERSION)
        for name in Account.objects.values_list("username", flat=True)
    )


def test_rekey_placeholder_is_never_a_key() -> None:
    """The placeholder holds a character whose key is another: since every character of
    every key is its own key, no name's key can contain it (the proof is the output
    alphabet test in tests/identifiers/test_lookalike.py; here, the premise and random names)."""
    assert any(identifier_key(ch) != ch for ch in REKEY_PREFIX)
    assert "R" in REKEY_PREFIX and identifier_key("R") == "r"


@hypothesis_settings(max_examples=examples(200), deadline=None)
@given(
    st.text(st.characters(exclude_categories=["Cs"]) | st.sampled_from("REKY:\uffff"), max_size=12)
)
def test_no_key_starts_like_the_rekey_placeholder(name: str) -> None:
    assert "R" not in identifier_key(name)
    assert not identifier_key(name).startswith(REKEY_PREFIX)


def test_simultaneous_signups_of_paypal_and_paypai_store_one(db: None) -> None:
    """ "PAYPAL" and "paypaI" (capital I, which looks like l) validate at the same time;
    whichever commits first wins, the other gets the form error, never an IntegrityError."""
    for first, second in (("PAYPAL", "paypaI"), ("paypaI", "PAYPAL"), ("İstanbul", "istanbul")):
        form = SignupForm({"username": second})
        assert form.is_valid(), form.errors  # nothing stored yet
        Account.objects.create(username=first)  # the other request, committed meanwhile
        assert save_unique(form) is None
        assert codes(form) == [TAKEN_CODE]
        assert list(Account.objects.values_list("username", flat=True)) == [first]
        Account.objects.all().delete()


def test_rekey_checks_its_arguments(db: None) -> None:
    with pytest.raises(TypeError, match="rekey\\(\\) argument 'batch_size' must be None or an int"):
        rekey(Account, "username_key", batch_size=True)
    with pytest.raises(ValueError, match="rekey\\(\\) argument 'batch_size'"):
        rekey(Account, "username_key", batch_size=0)
    with pytest.raises(TypeError, match="rekey\\(\\) argument 'field_name' must be str"):
        rekey(Account, None)  # type: ignore[arg-type]
    for model in (None, "Account", Account()):
        with pytest.raises(TypeError, match="rekey\\(\\) argument 'model' must be a model"):
            rekey(model, "username_key")
    for form in (None, "form", Account(), forms.Form()):
        with pytest.raises(TypeError, match="save_unique\\(\\) argument 'form' must be a Mod"):
            save_unique(form)


def test_rekey_reports_new_collisions_and_writes_nothing(db: None) -> None:
    first = Account.objects.create(username="paypal")
    second = Account.objects.create(username="other")
    # as if an older release had not folded case: "PayPal" kept its own key
    Account.objects.filter(pk=second.pk).update(username="PayPal", username_key="old")
    assert rekey(Account, "username_key") == [[first.pk, second.pk]]
    assert Account.objects.get(pk=second.pk).username_key == "old"
    with pytest.raises(TypeError, match="not an IdentifierKeyField"):
        rekey(Account, "username")


def test_the_signup_view_answers_400_with_the_form_error(db: None) -> None:
    client = Client()
    with override_settings(ROOT_URLCONF=__name__):
        created = client.post("/signup", {"username": "paypal"})
        assert created.status_code == 201
        assert created.json()["username"] == "paypal"
        refused = client.post("/signup", {"username": PAYPAL_CYRILLIC_A})
        assert refused.status_code == 400
        assert [e["code"] for e in refused.json()["errors"]["username"]] in (
            [INVALID_CODE],
            [TAKEN_CODE],
        )
        refused = client.post("/signup", {"username": "PAYPAL"})
        assert refused.status_code == 400
        (error,) = refused.json()["errors"]["username"]
        assert error["code"] == TAKEN_CODE
        assert "paypal" not in error["message"].lower()  # the existing account is not named
        for name in MULTILINGUAL:
            assert client.post("/signup", {"username": name}).status_code == 201


def test_importing_without_django_says_what_to_install() -> None:
    code = "import sys; sys.modules['django'] = None\nimport sanitizer.integrations.django"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError: sanitizer.integrations.django needs Django: pip install" in run.stderr
