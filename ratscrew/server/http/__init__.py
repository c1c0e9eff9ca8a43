"""The server's HTTP side, by kind: rooms (`rooms`), finished games and the leaderboard
(`games`), players (`players`), offline play (`offline`), the shared answers and error handlers
(`pages`), the security headers (`security`), and the per-address limits and cross-site checks
(`limits`).

Entered through: the route modules are registered by `ratscrew.server.app` (one list, in one
place); the rest of the server imports only `limits` (`Limits`, the counters), which sits below
the websocket side and the state."""
