"""`python -m games`."""

import sys

if sys.argv[1:2] == ["solve"]:
    # Straight to the solver: the registry's imports (pydantic) would double its start-up time.
    from games.solver.cli import main as solve_main

    sys.exit(solve_main(sys.argv[2:]))

from games.cli import main

sys.exit(main())
