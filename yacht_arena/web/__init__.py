"""`yacht serve`: web tables for people (and CPU seats), invite links, spectators, the analysis board and
watched tournaments, on Starlette and uvicorn (the `[web]` extra). See docs/web.md.

- `tables`: a table (a `Game` with seats and tokens), its messages and its file; finished games go to the store
- `board`: the analysis board's and the tournament view's data, read from the store
- `settings`: the operator's serve config, the limits and the menu of CPU players
- `storage`: the data folder (table files and journals, finished games, best scores)
- `registry`: the open tables, and opening one from the lobby's form
- `connections`: the WebSocket clients, their message budgets and sending
- `cpus`: the CPU seats' agents and the tasks that play them
- `idle`: which tables a full server closes
- `server`: the above put together; every client message handed to its table
- `guard`: other sites' pages refused (Origin, content type, Host)
- `listener`: what the server adds to uvicorn's sockets (request timeouts, the file budget, aborting a socket)
- `app`: the ASGI app (HTTP, WebSockets, static files)
"""
