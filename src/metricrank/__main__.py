"""``python -m metricrank``: the same as the ``metricrank`` command."""

import sys

from .cli import main

sys.exit(main())
