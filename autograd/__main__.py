"""``python -m autograd``: the ``autograd`` command line."""

import sys

from autograd.cli import main

if __name__ == "__main__":
    sys.exit(main())
