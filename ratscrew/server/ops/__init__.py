"""Running the server: shards and their supervisor, the nginx configuration, metrics, logs,
health, room expiry, copying a database, the database settings and the process's limits."""
