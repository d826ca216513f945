"""``python -m aau_core`` runs the ``aau`` command."""

from ._cli._group import main

main()
