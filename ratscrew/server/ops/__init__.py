"""Running the server: shards and their supervisor, the nginx configuration, metrics, logs,
health, room expiry, copying a database, the database settings and the process's limits.

Not one front door: each module is its own tool, used by `ratscrew serve` / `ratscrew admin`
(`ratscrew.commands`) or wired by `ratscrew.server.app` (health, metrics, expiry)."""
