"""Entry point of ``python -m labs``."""

import sys

from labs.frontends.cli import main

sys.exit(main())
