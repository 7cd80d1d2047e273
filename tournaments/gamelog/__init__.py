"""Game records: the one owner of stored games, whoever played them.

Tournaments (`tournaments.store`), `yacht evaluate --out` and the web tables (`yacht serve`) write their
finished games here; `yacht analyze`, `show` and `report`, the statistics (`tournaments.games`) and the
server's analysis board read them from here. Nothing else opens a games log.

- `layout`: the folder layout -- the games log and the meta file of each kind of run (tournament,
  evaluation, web table).
- `records`: one finished game as plain data (`game_record`, `record_of_game`, `placements`) and the one
  parser of a log's lines (`record_lines`).
- `schema`: what a record must hold (`RECORD_KEYS`) and its one check (`check_record` against a `Schema`:
  rules, seats, config hash; a tournament's store adds its schedule).
- `log`: appending (streamed, fsynced, one writer at a time by a lock on the log, without reading the
  log first; a torn last line is cut first) and reading (streamed) a games log, on safe files.
- `folders`: a folder of stored games read for the move analysis, with the rules its meta file names
  (`read_games`); an evaluation's folder written (`write_evaluation`); a web table's finished game
  stored in its own folder (`store_table_game`) and its seats' agent specs read back (`table_specs`).
- `best`: the best solo score per rule set (`BestScores`), kept beside the games.
"""
from .best import BestScores
from .folders import GameFile, TableMeta, analyze_file, daily_folders, read_games, rules_of_meta, \
    store_table_game, table_meta, table_record, table_specs, write_evaluation
from .layout import EVALUATION_META, GAMES, MAX_META_BYTES, METAS, TOURNAMENT_META
from .log import append, cut_torn_tail, disk_error, read, read_at, write
from .records import (
    MAX_RECORD_BYTES,
    first_of_each_key,
    game_record,
    placements,
    record_line,
    record_lines,
    record_of_game,
)
from .schema import RECORD_KEYS, Schema, check_record, is_whole

__all__ = [
    "EVALUATION_META",
    "GAMES",
    "MAX_META_BYTES",
    "MAX_RECORD_BYTES",
    "METAS",
    "RECORD_KEYS",
    "TOURNAMENT_META",
    "BestScores",
    "GameFile",
    "Schema",
    "TableMeta",
    "analyze_file",
    "append",
    "check_record",
    "cut_torn_tail",
    "daily_folders",
    "disk_error",
    "first_of_each_key",
    "game_record",
    "is_whole",
    "placements",
    "read",
    "read_at",
    "read_games",
    "record_line",
    "record_lines",
    "record_of_game",
    "rules_of_meta",
    "store_table_game",
    "table_meta",
    "table_record",
    "table_specs",
    "write",
    "write_evaluation",
]
