"""``python -m runtime.cli`` is ``amc``."""

import sys

from runtime.cli import main

sys.exit(main())
