"""`python -m graphfit` runs the CLI."""

from graphfit.cli import main

main()
