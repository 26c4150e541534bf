"""The test suite: one folder per part of the package (CONTRIBUTING.md, "Tests")."""
