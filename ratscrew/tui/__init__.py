"""The terminal game (Textual): play against bots or friends on one keyboard, and replay games.

A thin view over the engine and the runtime: every rule decision comes from the engine's events
and observations; this package only draws them and turns key presses into intents.
"""
