"""Helpers every test folder shares: the command line (``cli_runner``), the run's
settings (``settings``), the two backends (``backends``), counted work
(``instructions``) and the C interface's declarations (``native_interface``)."""
