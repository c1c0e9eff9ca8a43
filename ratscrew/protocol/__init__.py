"""The online protocol's one home, below the server and both clients (the page and ``ratscrew
join``); it imports nothing of :mod:`ratscrew.server`.

- :mod:`ratscrew.protocol.client_messages`: what a client sends, validated field by field into
  frozen dataclasses (`parse_client_message`, `parse_room_request`), with the error messages a
  client reads;
- :mod:`ratscrew.protocol.server_messages`: what the server sends, one TypedDict per message
  type (`ServerMessage`), checked by ``mypy --strict`` wherever the server builds one;
- :mod:`ratscrew.protocol.codec`: the one encoder and decoder (orjson) and `ProtocolError`;
- :mod:`ratscrew.protocol.keys` and :mod:`ratscrew.protocol.names`: what a player key and a
  player's name may be (the server and the terminal client both check them);
- :mod:`ratscrew.protocol.typescript`: the page's declarations, generated from the types
  (``python -m ratscrew.protocol typescript`` prints ``ratscrew/web/js/protocol.d.ts``).

docs/protocol.md describes every message and field; a test holds it to these types.
"""

from __future__ import annotations

from ratscrew.protocol.client_messages import PROTOCOL_VERSION, ClientMessage, parse_client_message
from ratscrew.protocol.codec import ProtocolError, decode_json, encode_message
from ratscrew.protocol.server_messages import ServerMessage

__all__ = ["PROTOCOL_VERSION", "ClientMessage", "ProtocolError", "ServerMessage", "decode_json",
           "encode_message", "parse_client_message"]
