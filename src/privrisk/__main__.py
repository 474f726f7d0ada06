"""``python -m privrisk`` runs the command line."""

from privrisk.cli import main

raise SystemExit(main())
