"""The websocket side of the server: uvicorn's protocol read in batches, the guards on the
connections themselves (transport) and each connection's measured round trip (link)."""
