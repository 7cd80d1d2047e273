"""The applications on top of the library: the `yacht` command line (`yacht_arena.cli`) and the table server
`yacht serve` (`yacht_arena.web`). They import `tournaments`, `agents` and `yacht_env`; nothing imports them."""
