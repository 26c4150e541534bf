"""Framework integrations: a sanitizer policy as a pydantic type, as Django validators, and
``identifier_key`` in a unique Django column.

Each submodule imports its framework and nothing else does, so ``import sanitizer``
never needs pydantic or Django: ``sanitizer.integrations.pydantic`` and
``sanitizer.integrations.django``.  They are adapters: the policy (``sanitizer.inspect``)
and ``sanitizer.identifier_key`` decide, the integrations translate the answer into the
framework's own errors.
"""

__all__: list[str] = []  # the integrations are the submodules
