"""The websocket side of the server: the endpoint ``/ws/CODE`` (`endpoint`: find the room, hold
each frame to the connection's rates, parse, hand the message to the room once), one socket as a
room sees it (`connection`), uvicorn's protocol read in batches (`wsprotocol`), the guards on the
connections themselves (`transport`) and each connection's measured round trip (`link`).

Entered through `endpoint` (registered by `ratscrew.server.app`). `link` is the exception: it
sits below the room (the room's judging reads a link's round trip), so the room imports it."""
