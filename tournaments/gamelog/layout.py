"""The folder layout of stored games: which file holds what, by the kind of run that wrote it.

Every folder of stored games holds one games log, `games.jsonl` (one record a line, `records`), and
one meta file saying what the games are and under which rules, named by kind:

| kind       | folder                          | meta file                                        | run lock          |
|------------|---------------------------------|--------------------------------------------------|-------------------|
| tournament | `--out DIR`, or `runs/NAME-HASH` | `tournament.json` (config and its hash)          | `tournament.lock` |
| evaluation | `yacht evaluate --out DIR`       | `evaluate.json` (agent, seed, rules, files)      | `evaluate.lock`   |
| web table  | `DATA/games/TABLE-N` (game N)    | `tournament.json` (2+ seats), `evaluate.json` (1) | none          |

A web game of several seats is kept as the one-game tournament whose game t0-d0-r0 seats the table's
names in seat order, so that `yacht report` reads it as it reads a tournament's; a solo game as an
evaluation of one game, its `evaluate.json` naming the table (`web`: table, game, the seat's agent spec).

A run lock is the run's: one run writes its folder at a time (a web game's folder is written once).
Appending takes the log's own lock besides (`log.append`), so appenders never interleave, whether or
not they hold a run lock.
"""
GAMES = "games.jsonl"
TOURNAMENT_META = "tournament.json"
EVALUATION_META = "evaluate.json"
METAS = (TOURNAMENT_META, EVALUATION_META)   # the meta files a folder's rules are read from, in this order
MAX_META_BYTES = 1 << 20
