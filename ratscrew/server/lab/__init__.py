"""The server's house-rule lab: its HTTP routes (`routes`, the front door, registered by
`ratscrew.server.app`) and the worker process that runs its jobs (`jobs`: `LabService`, which the
server's state holds and the lobbies ask for a game's expected length)."""
