"""Tests of the web layer: ``sanitizer/web/`` in process. Requests are built with
``request_builder.py``; the apps and servers of every web test are ``webapps.py``,
``webframeworks.py`` and ``webservers.py``."""
