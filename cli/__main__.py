"""``python -m amc.cli`` is ``amc``."""

import sys

from . import main

sys.exit(main())
