"""The shipped presets: one TOML ruleset file each, found here by :mod:`ratscrew.ruleset`.

A preset file is named ``NN-name.toml``: ``name`` is the preset's name (the file's ``name``
setting says the same) and the number ``NN`` its place in :meth:`ratscrew.ruleset.Ruleset.presets`
(the order the guide lists them in; a file without a number comes after the numbered ones, by
name). Adding a preset is adding a file here; nothing lists them by hand.
"""
