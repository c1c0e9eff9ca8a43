"""A room and its parts: one invite code, its seats, its people, its game and what it stores.

Entered through `room` (`Room`; its routes' table, `ROUTES`, lives in `routes`), with two
deliberate side doors: `admission` for quick play's `Reservation` (the server's
`open_matched_room`), and `lifecycle` for the hooks other parts of the server listen with.

`room.Room` wires the parts: the admission (the one way in), the routes and the dispatch table
(who may send what when), the lobby (seats and people), membership (tokens and the host), the
driver (the game at its table), the tally and judging (contested slaps), the publisher (what is
sent), the game's end (`ending`), persistence and the writer (what is stored), absence (people
who leave), the agents (bots and stand-ins) and the lifecycle hooks. A part that needs the room
back sees it through a narrow Protocol (`AdmittingRoom`, `RoutedRoom`, `EndingRoom`), checked
against `Room` once in `room.py`.
"""
