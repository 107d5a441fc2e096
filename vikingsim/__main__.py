import sys

from vikingsim.cli import main

sys.exit(main())
