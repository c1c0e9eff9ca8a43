"""Bots: agents that see only observations and events, modelled on human reaction times."""
