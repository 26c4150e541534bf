"""Tests of the policy layer: ``sanitizer.policy`` and ``sanitizer/_policy/``, ``profiles``,
``reveal``, the source gate (``_source_gate.py``) and the rule registry. Sample texts:
``text_classes.py``, ``reveal_samples.py``, ``source_samples.py``."""
