"""Entry point of ``python -m labs``."""

import sys

from .cli import main

sys.exit(main())
