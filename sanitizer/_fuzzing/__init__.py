"""Fuzzing's internals: the target registry, the oracles, the campaign behind
``sanitizer fuzz``; ``sanitizer.fuzzing`` is their public facade."""
