"""``python -m ratscrew.protocol typescript``: print the page's TypeScript declarations of the
protocol (`ratscrew.protocol.typescript`), as committed in ``ratscrew/web/js/protocol.d.ts``."""

from __future__ import annotations

import argparse
import sys

from ratscrew.protocol.typescript import COMMAND, declarations


def main(argv: list[str] | None = None) -> int:
    """Run the command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m ratscrew.protocol",
        description="Tools for the online protocol's types (ratscrew/protocol/).")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("typescript", help="print the page's TypeScript declarations of every "
                        f"message, both ways (write them with: {COMMAND})")
    parser.parse_args(argv)
    sys.stdout.write(declarations())
    return 0


if __name__ == "__main__":
    sys.exit(main())
