"""Arrays kept per sheet state with bounded memory: the eviction cache behind a policy's plans and stage
values (`yacht_env.solver.policy.Policy`).
"""

import numpy as np



class StateRows:
    """Arrays kept per sheet state: `rows(keys)` gives, for sheet states `keys` (games, columns), the rows
    of `data` that hold their entries, computing the missing ones with `fill(new_keys, out, 0)` (which
    writes out[:len(new_keys)]).

    At most `max_rows` entries are kept: when a call needs room, the entries asked for by the fewest games
    give theirs up, the least recently asked-for first among equals, never one the same call reads. So the
    states many games pass through (the first turns of a sheet) stay for the next batch of games, as do the
    states of the turns being played, while memory stays bounded (a single call that needs more than
    max_rows distinct states gets room for all). The entries only depend on the state, so what is kept
    changes the speed, never a result.
    """

    def __init__(self, space_size: int, dense: bool, shape: tuple, dtype, max_rows: int, fill):
        self.space_size, self.dense, self.shape, self.dtype = space_size, dense, tuple(shape), dtype
        self.max_rows, self.fill = int(max_rows), fill
        self.data, self.count = None, 0    # allocated on first use

    def clear(self) -> None:
        self.data = np.empty((self.max_rows, *self.shape), self.dtype)   # pages are taken as rows are written
        self.count = 0                                  # rows 0 .. count - 1 hold entries
        self.used = np.zeros(self.max_rows, np.int64)   # the call that last asked for each row
        self.asked = np.zeros(self.max_rows, np.int64)  # how many games have asked for each row
        self.held = None                                # the state key of each row (rows, columns)
        self.calls = 0
        self._slot = np.full(self.space_size, -1, np.int64) if self.dense else {}

    @property
    def slot(self) -> np.ndarray:
        """The dense index (dense only, after `clear`): slot[state] is the row of `data` that holds the state's
        entry, -1 where none is kept."""
        return self._slot

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        if self.dense:
            return self._slot[keys[:, 0]]
        return np.array([self._slot.get(k.tobytes(), -1) for k in keys], np.int64)

    def rows(self, keys: np.ndarray) -> np.ndarray:
        if self.data is None:
            self.clear()
        self.calls += 1
        keys = np.ascontiguousarray(keys, np.int64)
        rows = self._lookup(keys)
        missing = rows < 0
        if missing.any():
            self.used[rows[~missing]] = self.calls        # not given up to make room below
            new = np.unique(keys[missing, 0])[:, None] if self.dense else np.unique(keys[missing], axis=0)
            self._add(new)
            rows = self._lookup(keys)
        self.used[rows] = self.calls
        np.add.at(self.asked, rows, 1)
        return rows

    def _add(self, keys: np.ndarray) -> None:
        if self.held is None:
            self.held = np.empty((len(self.data), keys.shape[1]), np.int64)
        k = len(keys)
        held = self.count                                # rows that hold entries before this call
        fresh = np.arange(held, min(held + k, len(self.data)))
        self.count += len(fresh)
        places = fresh
        if len(fresh) < k:
            need = k - len(fresh)
            idle = np.flatnonzero(self.used[:held] < self.calls)
            if len(idle) < need:                         # one call with more states than max_rows
                self._grow(self.count + need - len(idle))
                places = np.concatenate([fresh, np.arange(self.count, self.count + need - len(idle))])
                self.count += need - len(idle)
                need = len(idle)
            rank = np.minimum(self.asked[idle], 1 << 20) * (1 << 40) + self.used[idle]   # fewest games, then oldest
            given = idle[np.argpartition(rank, need - 1)[:need]] if need else idle[:0]
            self._release(given)
            places = np.concatenate([places, given])
        out = np.empty((k, *self.shape), self.dtype)
        self.fill(keys, out, 0)
        self.data[places] = out
        self.held[places] = keys
        self.used[places] = self.calls
        self.asked[places] = 0
        if self.dense:
            self._slot[keys[:, 0]] = places
        else:
            for key, row in zip(keys, places.tolist()):
                self._slot[key.tobytes()] = row

    def _release(self, rows: np.ndarray) -> None:
        if self.dense:
            self._slot[self.held[rows, 0]] = -1
        else:
            for key in self.held[rows]:
                del self._slot[key.tobytes()]

    def _grow(self, size: int) -> None:
        grown = np.empty((size, *self.shape), self.dtype)
        grown[:self.count] = self.data[:self.count]
        self.data = grown
        self.used = np.concatenate([self.used, np.zeros(size - len(self.used), np.int64)])
        self.asked = np.concatenate([self.asked, np.zeros(size - len(self.asked), np.int64)])
        self.held = np.concatenate([self.held, np.empty((size - len(self.held), self.held.shape[1]), np.int64)])
