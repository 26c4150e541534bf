"""Tests of ``sanitizer.integrations``: Django and pydantic."""
