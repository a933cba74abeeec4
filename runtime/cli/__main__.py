"""``python -m runtime.cli`` is ``amc``."""

import sys

from . import main

sys.exit(main())
