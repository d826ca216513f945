"""``python -m aau_core`` runs the ``aau`` command."""

from ._cli import main

main()
