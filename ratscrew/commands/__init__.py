"""One module per ``ratscrew`` sub-command; each defines ``register(subparsers)``."""
