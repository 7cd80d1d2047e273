"""`yacht serve`: web tables for people (and CPU seats), invite links, spectators, the analysis board and
watched tournaments, on Starlette and uvicorn (the `[web]` extra). See docs/web.md.

- `tables`: a table (a `Game` with seats and tokens), its messages and its file; finished games go to the store
- `board`: the analysis board's and the tournament view's data, read from the store
- `app`: the ASGI app (HTTP, WebSockets, static files) and the server that holds the tables
"""
