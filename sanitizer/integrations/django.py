"""Django validators for identifiers, and ``identifier_key`` in a unique column so a new
username that looks like an existing one is a form error, not an IntegrityError.

    from django.db import models
    from sanitizer.integrations.django import (
        IdentifierKeyField, IdentifierValidator, UniqueIdentifierKeys)

    class Account(UniqueIdentifierKeys, models.Model):
        username = models.CharField(max_length=64, validators=[IdentifierValidator()])
        username_key = IdentifierKeyField(source="username", version_field="key_version")
        key_version = models.CharField(max_length=32, editable=False, default="")

``IdentifierValidator(policy)`` refuses what ``inspect(value, policy)`` refuses (the
``IDENTIFIER`` profile by default; a profile name or the dotted path of a ``Policy`` keeps
it writable into migrations), as ``ValidationError`` code ``"sanitizer_identifier"``.
``IdentifierKeyField`` holds ``identifier_key(<source>)``: unique, not editable, set on
every save, with ``IDENTIFIER_KEY_VERSION`` in ``version_field`` (the re-key procedure
is in docs/identifiers.md).  ``UniqueIdentifierKeys`` checks those keys in
``validate_unique`` -- which ModelForms and ``full_clean`` call -- as an error on the
source field, code ``"identifier_taken"``, without naming the account it collides with.
``save_unique(form)`` turns the race that validation cannot see (two signups at once)
into that same form error.  Django is optional: importing this module without it raises
ImportError saying what to install.

PRECIS (RFC 8265 usernames and passwords, RFC 8266 nicknames; ``sanitizer.precis``):
``PrecisValidator(profile)`` refuses what ``get_profile(profile).enforce`` refuses, as
``ValidationError`` code ``"sanitizer_precis"`` (params: ``profile``, ``reason`` as
precis-i18n says it, ``index``, ``detail``), for any profile, OpaqueString included
(validate a password, then hash what ``enforce`` returns).  ``PrecisField(profile=...)``
is a CharField that holds the enforced string: ``full_clean`` (ModelForms) enforces the
value and reports a refusal on the field, ``save`` enforces again, so with
``unique=True`` the database itself refuses a second "JULIET" beside "juliet".

    class Account(models.Model):
        username = PrecisField(profile="UsernameCaseMapped", max_length=64, unique=True)
        display_name = PrecisField(profile="NicknameCaseMapped", max_length=64)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

try:
    from django import forms  # type: ignore[import-untyped]
    from django.core import checks  # type: ignore[import-untyped]
    from django.core.exceptions import ValidationError  # type: ignore[import-untyped]
    from django.db import IntegrityError, models, router, transaction  # type: ignore[import-untyped]
    from django.db.models.functions import Cast, Concat  # type: ignore[import-untyped]
    from django.utils.functional import Promise  # type: ignore[import-untyped]
    from django.utils.module_loading import import_string  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - exercised in a child interpreter
    raise ImportError(
        "sanitizer.integrations.django needs Django: pip install 'django>=4.2'"
    ) from exc

from .. import precis, profiles
from .._arguments import bad_type, check_count, exact_str
from .._lookalike import IDENTIFIER_KEY_VERSION, identifier_key
from .._policy import Policy, inspect

__all__ = [
    "INVALID_CODE",
    "PRECIS_INVALID_CODE",
    "TAKEN_CODE",
    "IdentifierKeyField",
    "IdentifierValidator",
    "PrecisField",
    "PrecisValidator",
    "UniqueIdentifierKeys",
    "rekey",
    "save_unique",
]

INVALID_CODE = "sanitizer_identifier"  # the policy refused the value
TAKEN_CODE = "identifier_taken"  # another row has the same identifier_key
PRECIS_INVALID_CODE = "sanitizer_precis"  # a PRECIS profile refused the value
KEY_TOO_LONG_CODE = "identifier_key_too_long"
# What ``rekey`` writes into a stale row's key column (with the row's primary key) while
# it frees the old keys: "R" is no key's character (identifier_key folds case, and every
# character of a key is its own key), so no accepted name can collide with it.
REKEY_PREFIX = "REKEY:"


_VALIDATOR = "IdentifierValidator"


def _resolve(policy: Policy | str) -> Policy:
    """A policy, a profile name ("identifier") or the dotted path of a Policy."""
    if isinstance(policy, Policy):
        return policy
    if not isinstance(policy, str):
        raise TypeError(
            "IdentifierValidator() argument 'policy' must be a Policy, a profile name or a "
            f"dotted path, not {type(policy).__name__}"
        )
    if "." not in policy:
        try:
            return profiles.get(policy)
        except ValueError as exc:
            raise ValueError(f"IdentifierValidator() argument 'policy': {exc}") from None
    found = import_string(policy)
    if not isinstance(found, Policy):
        raise TypeError(
            f"IdentifierValidator(): {policy!r} is a {type(found).__name__}, not a Policy"
        )
    return found


class IdentifierValidator:
    """A Django validator refusing what ``inspect(value, policy)`` refuses.

    ``policy``: a ``Policy``, a profile name or a Policy's dotted path ("myapp.policies.
    USERNAME"); only the last two can be written into a migration.  The message's
    ``%(finding)s`` is the first refusal ("whitespace at 1..2: U+0020 SPACE ' ' (reject)");
    ``params`` also hold ``value``, ``policy`` and ``category``.  A validator only checks:
    to store the policy's output (NFC), clean the field with ``sanitizer.sanitize``.
    """

    message = "Enter a valid identifier: %(finding)s."
    code = INVALID_CODE

    def __init__(
        self,
        policy: Policy | str = "identifier",
        *,
        message: str | None = None,
        code: str | None = None,
    ) -> None:
        self.policy = _resolve(policy)
        self.policy_ref = policy
        if message is not None:
            if not isinstance(message, (str, Promise)):  # Promise: a lazy translation
                bad_type(message, "None, a str or a lazy translation", "message", _VALIDATOR)
            self.message = message
        if code is not None:
            self.code = exact_str(code, "code", _VALIDATOR)

    def __call__(self, value: Any) -> None:
        if not isinstance(value, str):
            finding, category = f"not text but {type(value).__name__}", None
        else:
            report = inspect(value, self.policy)
            if report.ok:
                return
            refused = report.rejections or report.findings
            finding = str(refused[0]) if refused else "rejected"
            category = refused[0].category.value if refused else None
        params = {
            "value": value,
            "finding": finding,
            "category": category,
            "policy": self.policy.name,
        }
        raise ValidationError(self.message, code=self.code, params=params)

    def deconstruct(self) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        """How a migration writes this validator: the policy by name or dotted path."""
        kwargs: dict[str, Any] = {}
        ref = self.policy_ref
        if isinstance(ref, Policy):
            names = [name for name, known in profiles.PROFILES.items() if known is ref]
            if not names:
                raise ValueError(
                    f"IdentifierValidator: the Policy {ref.name!r} cannot be written into a "
                    "migration; pass its dotted path instead, e.g. "
                    "IdentifierValidator('myapp.policies.USERNAME')"
                )
            ref = names[0]
        if ref != "identifier":
            kwargs["policy"] = ref
        if self.message != IdentifierValidator.message:
            kwargs["message"] = self.message
        if self.code != IdentifierValidator.code:
            kwargs["code"] = self.code
        return f"{__name__}.IdentifierValidator", (), kwargs

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, IdentifierValidator)
            and self.policy == other.policy
            and self.message == other.message
            and self.code == other.code
        )

    def __hash__(self) -> int:
        return hash((self.policy, self.message, self.code))

    def __repr__(self) -> str:
        return f"IdentifierValidator(policy={self.policy.name!r})"


class IdentifierKeyField(models.CharField):  # type: ignore[misc]
    """``identifier_key(<source field>)``, recomputed on every save: a unique, non-editable
    column, so two rows can never hold look-alike identifiers (the database enforces
    it).  ``version_field`` names a CharField (declared after this one) that receives
    ``IDENTIFIER_KEY_VERSION`` with each key.  ``QuerySet.update()`` does not run it:
    call ``refresh_identifier_keys()`` and ``save()`` instead."""

    description = "identifier_key() of another field"

    def __init__(
        self, *args: Any, source: str, version_field: str | None = None, **kwargs: Any
    ) -> None:
        self.source = source
        self.version_field = version_field
        kwargs.setdefault("max_length", 255)
        kwargs.setdefault("unique", True)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> tuple[str, str, list[Any], dict[str, Any]]:
        name, _, args, kwargs = super().deconstruct()
        # only what differs from this field's defaults (Field's differ: unique, editable)
        kwargs.pop("unique", None)
        kwargs.pop("editable", None)
        if kwargs.get("max_length") == 255:
            del kwargs["max_length"]
        if not self.unique:
            kwargs["unique"] = False
        if self.editable:
            kwargs["editable"] = True
        kwargs["source"] = self.source
        if self.version_field is not None:
            kwargs["version_field"] = self.version_field
        return name, f"{__name__}.IdentifierKeyField", args, kwargs

    def key_of(self, instance: Any) -> str | None:
        """The key of ``instance``'s current source value (None for None)."""
        value = getattr(instance, self.model._meta.get_field(self.source).attname)
        return None if value is None else identifier_key(value)

    def refresh(self, instance: Any) -> str | None:
        """Set the key (and its version) on ``instance`` from the source field."""
        key = self.key_of(instance)
        setattr(instance, self.attname, key)
        if self.version_field is not None:
            setattr(instance, self.version_field, IDENTIFIER_KEY_VERSION)
        return key

    def pre_save(self, model_instance: Any, add: bool) -> str | None:
        # bulk_create() calls this without save(): the key is never older than the source.
        return self.refresh(model_instance)

    def check(self, **kwargs: Any) -> list[Any]:
        errors: list[Any] = super().check(**kwargs)
        names = [f.name for f in self.model._meta.concrete_fields]
        if self.source not in names:
            errors.append(
                checks.Error(
                    f"IdentifierKeyField source {self.source!r} is not a field of this model",
                    obj=self,
                    id="sanitizer.E001",
                )
            )
        if (
            self.version_field is not None
            and self.version_field not in names[names.index(self.name) + 1 :]
        ):
            errors.append(
                checks.Error(
                    f"IdentifierKeyField version_field {self.version_field!r} must be a field "
                    "declared after the key field (it is written with the key)",
                    obj=self,
                    id="sanitizer.E002",
                )
            )
        return errors


def _key_fields(model: Any) -> list[IdentifierKeyField]:
    return [f for f in model._meta.concrete_fields if isinstance(f, IdentifierKeyField)]


class UniqueIdentifierKeys:
    """Model mixin (before ``models.Model`` in the bases): ``validate_unique`` refuses a
    source value whose key another row holds, as an error on the source field; ``save``
    refreshes the keys, also under ``update_fields``."""

    identifier_taken_message = "This %(field_label)s is already taken, or looks like one that is."

    def refresh_identifier_keys(self) -> None:
        for field in _key_fields(self):
            field.refresh(self)

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.refresh_identifier_keys()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            names = set(update_fields)
            for field in _key_fields(self):
                if field.source in names:
                    names.add(field.name)
                    if field.version_field is not None:
                        names.add(field.version_field)
            kwargs["update_fields"] = names
        super().save(*args, **kwargs)  # type: ignore[misc]

    def validate_unique(self, exclude: Iterable[str] | None = None) -> None:
        excluded = set(exclude or ())
        key_fields = _key_fields(self)
        errors: dict[str, list[Any]] = {}
        try:
            # the key columns are judged below, by their source field
            super().validate_unique(  # type: ignore[misc]
                exclude=excluded | {f.name for f in key_fields}
            )
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        for field in key_fields:
            if field.source in excluded or field.source in errors:
                continue
            problem = self.identifier_key_problem(field)
            if problem is not None:
                errors.setdefault(field.source, []).append(problem)
        if errors:
            raise ValidationError(errors)

    def identifier_key_problem(self, field: IdentifierKeyField) -> Any:
        """The ``ValidationError`` for ``field``'s key, or None when it is free."""
        key = field.key_of(self)
        if key is None:
            return None
        source = self._meta.get_field(field.source)  # type: ignore[attr-defined]
        params = {"field_label": source.verbose_name, "model_name": self._meta.verbose_name}  # type: ignore[attr-defined]
        if len(key) > field.max_length:
            return ValidationError(
                "This %(field_label)s is too long to compare with existing ones.",
                code=KEY_TOO_LONG_CODE,
                params=params,
            )
        others = type(self)._default_manager.filter(**{field.attname: key})  # type: ignore[attr-defined]
        if not self._state.adding and self.pk is not None:  # type: ignore[attr-defined]
            others = others.exclude(pk=self.pk)  # type: ignore[attr-defined]
        if not others.exists():
            return None
        return ValidationError(self.identifier_taken_message, code=TAKEN_CODE, params=params)


def save_unique(form: Any, **save_kwargs: Any) -> Any:
    """``form.save()`` in a transaction.  When the database refuses it because another
    request took a key between validation and save (IntegrityError), the form gets the
    errors ``validate_unique`` gives now and None is returned; any other IntegrityError
    is raised again."""
    if not isinstance(form, forms.BaseModelForm):
        bad_type(form, "a ModelForm", "form", "save_unique")
    model = form._meta.model
    try:
        with transaction.atomic(using=router.db_for_write(model)):
            return form.save(**save_kwargs)
    except IntegrityError:
        try:
            form.instance.validate_unique()
        except ValidationError as error:
            form.add_error(None, error)
            return None
        raise


def _is_model_class(model: object) -> bool:
    return isinstance(model, type) and issubclass(model, models.Model)


def rekey(model: Any, field_name: str, *, batch_size: int = 500) -> list[list[Any]]:
    """Recompute the ``IdentifierKeyField`` ``field_name`` of ``model`` with this release's
    ``identifier_key`` (a data migration's ``RunPython``, with ``apps.get_model(...)``).

    First every row's new key is computed: if two rows' new keys are equal, nothing is
    written and the groups of their primary keys are returned, for the app to resolve.
    Otherwise the rows whose ``version_field`` is not ``IDENTIFIER_KEY_VERSION`` (all rows
    without one) get their new key and version in one transaction, and [] is returned.
    Memory grows with the number of rows (one key each); for millions of rows, find the
    collisions first with ``sanitizer collisions`` on an export of the names."""
    if not _is_model_class(model):
        bad_type(model, "a model class (apps.get_model(...) in a migration)", "model", "rekey")
    batch_size = check_count(batch_size, "batch_size", "rekey", 1)
    field_name = exact_str(field_name, "field_name", "rekey")
    field = model._meta.get_field(field_name)
    if not isinstance(field, IdentifierKeyField):
        raise TypeError(f"rekey(): {field_name!r} is not an IdentifierKeyField")
    source = model._meta.get_field(field.source).attname
    manager = model._default_manager
    owners: dict[str, list[Any]] = {}
    for pk, value in manager.values_list("pk", source).iterator(chunk_size=batch_size):
        if value is not None:
            owners.setdefault(identifier_key(value), []).append(pk)
    clashes = [pks for pks in owners.values() if len(pks) > 1]
    if clashes:
        return clashes
    stale = manager.all()
    if field.version_field is not None:
        stale = stale.exclude(**{field.version_field: IDENTIFIER_KEY_VERSION})
    with transaction.atomic(using=router.db_for_write(model)):
        pks = list(stale.values_list("pk", flat=True))
        # Free the old keys first: a row's new key may be another stale row's old one.
        # The placeholder holds "R", which no key contains (see REKEY_PREFIX).
        freed = Concat(models.Value(REKEY_PREFIX), Cast("pk", models.CharField()))
        stale.update(**{field.attname: freed})
        written = [field.attname] + ([field.version_field] if field.version_field else [])
        for start in range(0, len(pks), batch_size):
            rows = list(manager.filter(pk__in=pks[start : start + batch_size]))
            for row in rows:
                field.refresh(row)
            manager.bulk_update(rows, written)
    return []


# -- PRECIS (RFC 8264, 8265, 8266) ----------------------------------------------------------


class PrecisValidator:
    """A Django validator refusing what the PRECIS profile ``profile`` refuses (a name as
    ``sanitizer.precis.get_profile`` takes it; written into migrations by that name).

    ``%(detail)s`` in the message is the ``PrecisError`` message ("UsernameCaseMapped:
    U+0020 SPACE ' ' at index 3 is a space ... [DISALLOWED/spaces]"): it names the
    refused character, never the whole value.  A validator only checks: to store the
    enforced string, use ``PrecisField`` or clean the value with ``enforce``."""

    message = "Enter a valid value: %(detail)s."
    code = PRECIS_INVALID_CODE

    def __init__(
        self,
        profile: str = "UsernameCaseMapped",
        *,
        message: str | None = None,
        code: str | None = None,
    ) -> None:
        if not isinstance(profile, str):
            raise TypeError(
                "PrecisValidator() argument 'profile' must be a PRECIS profile name, "
                f"not {type(profile).__name__}"
            )
        self.profile = precis.get_profile(profile)  # UnknownProfileError lists the names
        if message is not None:
            self.message = message
        if code is not None:
            self.code = code

    def enforce(self, value: Any) -> str:
        """``value`` enforced, or the ``ValidationError`` of this validator."""
        if not isinstance(value, str):
            detail, reason, index = f"not text but {type(value).__name__}", None, None
        else:
            try:
                return self.profile.enforce(value)
            except precis.PrecisError as error:
                detail, reason, index = str(error), error.reason, error.index
        params = {
            "value": value,
            "profile": self.profile.name,
            "reason": reason,
            "index": index,
            "detail": detail,
        }
        raise ValidationError(self.message, code=self.code, params=params)

    def __call__(self, value: Any) -> None:
        self.enforce(value)

    def deconstruct(self) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        kwargs: dict[str, Any] = {}
        if self.profile.name != "UsernameCaseMapped":
            kwargs["profile"] = self.profile.name
        if self.message != PrecisValidator.message:
            kwargs["message"] = self.message
        if self.code != PrecisValidator.code:
            kwargs["code"] = self.code
        return f"{__name__}.PrecisValidator", (), kwargs

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PrecisValidator)
            and self.profile is other.profile
            and self.message == other.message
            and self.code == other.code
        )

    def __hash__(self) -> int:
        return hash((self.profile.name, self.message, self.code))

    def __repr__(self) -> str:
        return f"PrecisValidator(profile={self.profile.name!r})"


class PrecisField(models.CharField):  # type: ignore[misc]
    """A CharField holding the PRECIS profile's enforced form of its value (RFC 8264 §7).

    ``clean`` (``full_clean``, ModelForms) enforces, so a refusal is a ValidationError on
    the field (code ``"sanitizer_precis"``) and ``validate_unique`` compares enforced
    values; ``save`` enforces again (a refused value raises the same ValidationError
    rather than reach the database; ``QuerySet.update()`` does not run it).  A blank
    value of a ``blank=True`` field is kept.  Lookups compare as given: filter with the
    enforced value (``field.precis.profile.enforce("JULIET")``)."""

    description = "a string enforced by a PRECIS profile"

    def __init__(self, *args: Any, profile: str = "UsernameCaseMapped", **kwargs: Any) -> None:
        self.precis = PrecisValidator(profile)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> tuple[str, str, list[Any], dict[str, Any]]:
        name, _, args, kwargs = super().deconstruct()
        kwargs["profile"] = self.precis.profile.name
        return name, f"{__name__}.PrecisField", args, kwargs

    def _enforced(self, value: Any) -> Any:
        if value is None or (self.blank and value in self.empty_values):
            return value
        return self.precis.enforce(value)

    def to_python(self, value: Any) -> Any:
        return self._enforced(super().to_python(value))

    def get_prep_value(self, value: Any) -> Any:
        # Lookups are not enforced (a refused value would make a query raise): query
        # with the enforced value, ``field.precis.profile.enforce(value)``.
        return models.CharField.to_python(self, models.Field.get_prep_value(self, value))

    def pre_save(self, model_instance: Any, add: bool) -> Any:
        value = self._enforced(getattr(model_instance, self.attname))
        setattr(model_instance, self.attname, value)
        return value
