"""Players and the ladder: player keys and pages (`players`), ratings (`ratings`), rankings
(`ranking`), whether a game is rated (`rated`), and the integrity review after each game
(`review`).

Entered through `ratings` (rating finished games, exactly once) and `players` (keys and public
ids, for the admission and the players' pages); the plain numbers the storage counts by live
below the server, in `ratscrew.storage.terms`."""
