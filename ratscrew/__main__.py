"""``python -m ratscrew``: the same as the ``ratscrew`` command."""

import sys

from ratscrew.cli import main

sys.exit(main())
