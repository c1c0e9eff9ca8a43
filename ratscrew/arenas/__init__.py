"""Arenas (issue 50): timed tournaments on the room server. `ratscrew.arenas.scoring` is the one
home of their points and standings (pure: no server, no storage); the server's part is in
`ratscrew.server.http.arenas`.
"""
