"""The server's HTTP parts that are not a room: the per-address limits and cross-site checks,
and what makes the browser table installable and playable offline."""
