"""A room and its parts: one invite code, its seats, its people, its game and what it stores.

`room.Room` wires the parts: the lobby (seats and people), membership (tokens and the host),
the dispatch table (who may send what when), the driver (the game at its table), the tally and
judging (contested slaps), the publisher (what is sent), persistence and the writer (what is
stored), absence (people who leave), the agents (bots and stand-ins) and the lifecycle hooks.
"""
