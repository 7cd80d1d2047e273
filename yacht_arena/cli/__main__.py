"""`python -m yacht_arena.cli ...` runs the `yacht` command."""
import sys

from . import main

sys.exit(main())
