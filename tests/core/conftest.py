"""Fixtures of the tests of the decoder core: ``sanitizer/_decoder.py``, ``_errors.py``,
``_grammar.py``, ``_machine.py``, ``_native.py`` and the C validator,
``utf16``/``utf32``/``utf7``, the generated category tables. Oracles independent of the
grammar: ``oracles.py``.

The hooks and the fixtures every folder shares are in ``tests/conftest.py``.
"""
