"""``python -m sanitizer``: the same CLI as the ``sanitizer`` console script."""

from .cli import main

raise SystemExit(main())
