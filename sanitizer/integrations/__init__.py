"""Framework integrations: a sanitizer policy as a pydantic type, as Django validators, and
``identifier_key`` in a unique Django column; ``sanitizer.columns`` as a polars namespace.

Each submodule imports its framework and nothing else does, so ``import sanitizer``
never needs pydantic, Django or polars: ``sanitizer.integrations.pydantic``,
``sanitizer.integrations.django`` and ``sanitizer.integrations.polars``.  They are
adapters: the policy (``sanitizer.inspect``), ``sanitizer.identifier_key`` and
``sanitizer.columns`` decide, the integrations translate the answer into the framework's
own errors and types.
"""

__all__: list[str] = []  # the integrations are the submodules
