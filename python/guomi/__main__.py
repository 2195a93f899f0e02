"""``python -m guomi`` is the ``guomi`` command."""

import sys

from guomi.cli import main

sys.exit(main())
