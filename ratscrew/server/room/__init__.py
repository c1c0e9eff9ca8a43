"""A room and its parts: one invite code, its seats, its people, its game and what it stores.

Entered through `room` (`Room`; its routes' table, `ROUTES`, lives in `routes`), with two
deliberate side doors: `admission` for quick play's `Reservation` (the server's
`open_matched_room`), and `lifecycle` for the hooks other parts of the server listen with.

`room.Room` wires the parts: the admission (the one way in), the routes and the dispatch table
(who may send what when), the lobby (seats and people), membership (tokens and the host), the
driver (the game at its table), playing a game (`games`: dealt, driven, each step stored then
shown), the tally and judging (contested slaps), the publisher (what is sent), the game's end
(`ending`), persistence and the writer (what is stored), absence (people who leave), the room
message (`messages`), the store lost and back (`outage`), making a room (`making`: created,
matched, restored), the agents (bots and stand-ins) and the lifecycle hooks. A part that needs
the room back sees it through a narrow Protocol (`AdmittingRoom`, `RoutedRoom`, `EndingRoom`,
`OutageRoom`, `AwayRoom`, `AnnouncingRoom`, `PlayingRoom`, `MadeRoom`), checked against `Room`
once in `room.py`; no part imports `room.py`.
"""
