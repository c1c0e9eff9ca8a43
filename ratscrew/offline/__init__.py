"""The offline table (issue 51): a game against bots that runs entirely in the browser.

The page's Web Worker loads Pyodide, unpacks the ratscrew sources the server hands it as one
archive (:mod:`ratscrew.offline.archive`), and hosts an :class:`~ratscrew.offline.room.OfflineRoom`
on the real engine, runtime and bots. The page talks to it with the protocol messages it sends a
server (``join``, ``play``, ``slap``, ``rematch`` ...) and gets back the server's messages
(``welcome``, ``room``, ``state``, ``judgement``, ``game_over``), so the table is the one players
know. Nothing here imports the server's web, storage or rating parts (they need C extensions
that Pyodide's core does not have); :mod:`ratscrew.offline.jsonshim` stands in for orjson.
"""
