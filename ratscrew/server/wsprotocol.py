"""The websocket protocol the server runs on: uvicorn's sans-I/O implementation, reading in
batches.

uvicorn stops reading a socket after every message it hands the app and starts again when the
app has taken it: two changes to the event loop's selector per incoming frame. On a loaded
server (500 rooms, 1,200 frames a second in) that was a tenth of the process's samples
(``resume_reading``/``_add_reader`` under py-spy), for frames of a few dozen bytes. Here reading
stops only when :data:`RECEIVE_HIGH_WATER` messages wait for the app, and starts again once the
app has taken them all, so a flooding client is still held back (and the app's rate limit
closes it) while an ordinary one costs no selector change at all.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

RECEIVE_HIGH_WATER = 16
"""Messages waiting for the app before the socket stops being read (each at most the server's
largest frame, so a connection holds at most this many frames in memory)."""


class BatchedReadProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol that pauses reading only at
    :data:`RECEIVE_HIGH_WATER` queued messages (see the module docstring)."""

    def send_receive_event_to_app(self) -> None:
        """Queue a complete message for the app; stop reading only when too many wait."""
        paused = self.read_paused
        self.read_paused = True  # the parent pauses after every message unless already paused
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= RECEIVE_HIGH_WATER:
            self.read_paused = True
            self.transport.pause_reading()
