"""Pictures of a table for `render_mode="rgb_array"` and `"human"`, drawn with pygame (the `[render]` extra).

    frame = Picture(rules, num_sheets).draw(game, dice, labels, move)     # (H, W, 3) uint8
    window = Window(picture, fps); window.show(frame)                      # render_mode="human"

As Gymnasium's toy-text games draw themselves: the rules' dice (five or six) with pips (the dice the last re-roll kept
are marked "held"), whose turn it is and the rolls left, the last move, and every sheet of the table
(one column of cells per sheet and sheet column: filled boxes with their points, the open boxes of the
sheet to move with what they would score now in grey, the upper bonus and the total, and under rules with
saved rolls each sheet's saved rolls, `Game.saved_rolls_shown`). `Yacht-v0`,
`YachtVs-v0` and the PettingZoo env all draw through `Picture` from a `yacht_env.core.game.Game` view of
their table; a frame's size depends only on the rules and the number of sheets, so frames make a video.
`Move` is what an env remembers of the last move it played (`last_move`); it and `render_sheet`, the text
picture of render_mode="ansi", need no pygame.
"""
from dataclasses import dataclass

import numpy as np

from ..core.actions import action_name, num_holds
from ..core.engine import UPPER

EXTRA = "render"
RENDER_MODES = ("human", "rgb_array", "ansi")
CELL_W, ROW_H, NAME_W, DIE, PAD = 64, 22, 150, 50, 12
TOP = 2 * PAD + DIE + 70                 # header, dice, held marks and the last move
BG, INK, GREY, LINE = (246, 244, 236), (30, 30, 30), (150, 150, 150), (200, 196, 186)
HELD, TO_MOVE, FELT = (200, 60, 40), (255, 236, 170), (40, 110, 70)
PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
        5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}


class PygameMissing(ImportError, TypeError):
    """pygame is not installed. Also a TypeError, as `RenderModeError` is: Stable-Baselines3's `make_vec_env`
    asks every env for render_mode="rgb_array" and makes it without one when that raises TypeError."""


def require_pygame(render_mode: str):
    """The pygame module; `PygameMissing` (one line naming the extra) when it is not installed."""
    try:
        import pygame   # the render extra: only to draw
    except ImportError:
        raise PygameMissing(f"render_mode={render_mode!r} draws with pygame: pip install 'yacht-arena[{EXTRA}]'") \
            from None
    return pygame


@dataclass(frozen=True)
class Move:
    """The last move played: who (a label), what (`action_name`), and the dice values a re-roll kept."""
    who: str
    what: str
    kept: tuple[int, ...] = ()


def last_move(rules, who: str, dice_before, action: int) -> Move:
    """The `Move` of `action` played on the sorted dice `dice_before` (bit i of a hold keeps die i)."""
    kept = tuple(int(d) for i, d in enumerate(dice_before) if action < num_holds(rules) and action >> i & 1)
    return Move(who, action_name(rules, int(action)), kept)


def held_marks(dice, move: Move | None) -> list[bool]:
    """Which of the (sorted) dice shown are the ones the last re-roll kept: one die per kept value."""
    marks, left = [False] * len(dice), list(move.kept) if move else []
    for i, d in enumerate(dice):
        if int(d) in left:
            left.remove(int(d))
            marks[i] = True
    return marks


def rolls_text(rules, rolls_left: int, saved: int) -> str:
    """The rolls left as a picture says them, with the S saved ones under rules with saved rolls
    (`Game.saved_rolls_shown`): "rolls left 4 (1 saved)"."""
    return f"rolls left {rolls_left}" + (f" ({saved} saved)" if rules.saved_rolls else "")


def render_sheet(rules, dice, rolls_left: int, turn: int, scores, preview, total: int,
                 over: bool = False, title: str = "", saved: int = 0) -> str:
    """Text picture of the dice and one score sheet: filled boxes show points, open boxes [what they'd score];
    `saved`: the sheet's saved rolls to show (`Game.saved_rolls_shown`; shown only under rules with saved rolls)."""
    head = f"{title}turn {min(turn + 1, rules.rounds)}/{rules.rounds}  total {total}"
    lines = [head + ("  (game over)" if over else "  " + rolls_text(rules, rolls_left, saved)),
             "dice  " + " ".join(str(int(d)) for d in dice)]
    width = max(len(n) for n in rules.boxes)
    cols = scores.shape[0]
    if cols > 1:
        lines.append(" " * width + "".join(f"{f'col {c + 1}':>8}" for c in range(cols)))
    for b, name in enumerate(rules.boxes):
        cells = []
        for c in range(cols):
            if scores[c, b] >= 0:
                cells.append(f"{int(scores[c, b]):>8}")
            elif preview[c, b] >= 0:
                cells.append(f"{f'[{int(preview[c, b])}]':>8}")
            else:
                cells.append(f"{'.':>8}")
        lines.append(f"{name:<{width}}" + "".join(cells))
    return "\n".join(lines) + "\n"


class Picture:
    """Draws one table of `rules` with `num_sheets` sheets as an RGB array (a pygame Surface, no window)."""

    def __init__(self, rules, num_sheets: int):
        self.pygame = pg = require_pygame("rgb_array")
        pg.font.init()
        self.rules, self.num_sheets = rules, num_sheets
        self.cols = rules.columns
        width = NAME_W + num_sheets * self.cols * CELL_W + PAD
        height = TOP + (len(rules.boxes) + 4) * ROW_H + PAD
        width = max(width, rules.dice * (DIE + PAD) + 2 * PAD)
        self.font = pg.font.Font(None, 22)
        self.big = pg.font.Font(None, 26)
        if rules.saved_rolls:           # room for the longest header: "... rolls left N (S saved)"
            most = rules.most_rolls
            head = f"turn {rules.rounds}/{rules.rounds}   seat {num_sheets} to move   rolls left {most} ({most} saved)"
            width = max(width, self.big.size(head)[0] + 2 * PAD)
        self.size = (16 * -(-width // 16), 16 * -(-height // 16))       # multiples of 16: video encoders want them

    def text(self, surface, s: str, xy, color=INK, font=None, right: bool = False) -> None:
        img = (font or self.font).render(s, True, color)
        surface.blit(img, (xy[0] - img.get_width(), xy[1]) if right else xy)

    def die(self, surface, x: int, y: int, face: int, held: bool) -> None:
        pg = self.pygame
        pg.draw.rect(surface, (255, 255, 255), (x, y, DIE, DIE), border_radius=8)
        pg.draw.rect(surface, HELD if held else INK, (x, y, DIE, DIE), width=4 if held else 2, border_radius=8)
        for r, c in PIPS.get(int(face), []):
            pg.draw.circle(surface, INK, (x + 12 + c * 13, y + 12 + r * 13), 5)
        if held:
            self.text(surface, "held", (x + 10, y + DIE + 4), HELD)

    def draw(self, game, dice, labels: list[str], move: Move | None = None) -> np.ndarray:
        """(H, W, 3) uint8: the table of `game` (a `Game` view) with `dice` in hand; labels[s] names sheet s."""
        pg = self.pygame
        surface = pg.Surface(self.size)
        surface.fill(BG)
        rules, over = self.rules, game.is_over
        to_move = None if over else game.current_sheet
        head = (f"turn {min(game.round + 1, rules.rounds)}/{rules.rounds}   " +
                ("game over" if over else f"{labels[to_move]} to move   "
                                          + rolls_text(rules, game.rolls_left, game.saved_rolls_shown(to_move))))
        self.text(surface, head, (PAD, PAD), font=self.big)
        pg.draw.rect(surface, FELT, (PAD - 4, PAD + 24, rules.dice * (DIE + PAD) + 4, DIE + 30), border_radius=6)
        for k, (face, held) in enumerate(zip(dice, held_marks(dice, move))):
            self.die(surface, PAD + k * (DIE + PAD), PAD + 28, face, held)
        self.text(surface, f"last move: {move.who} {move.what}" if move else "last move: -",
                  (PAD, PAD + DIE + 62))
        st, i = game.state, game.table
        preview = st.preview[i] if not over and game.phase == "decide" else None
        y0 = TOP
        for s in range(self.num_sheets):
            for c in range(self.cols):
                x = NAME_W + (s * self.cols + c) * CELL_W
                if s == to_move:
                    pg.draw.rect(surface, TO_MOVE, (x, y0, CELL_W, (len(rules.boxes) + 4) * ROW_H))
                label = labels[s] if self.cols == 1 else f"{labels[s]} {c + 1}"
                self.text(surface, label[:9], (x + CELL_W - 6, y0 + 3), right=True)
        for b, name in enumerate(rules.boxes):
            y = y0 + (b + 1) * ROW_H
            pg.draw.line(surface, LINE, (PAD, y), (self.size[0] - PAD, y))
            self.text(surface, name.replace("_", " "), (PAD, y + 3))
            for s in range(self.num_sheets):
                for c in range(self.cols):
                    x = NAME_W + (s * self.cols + c) * CELL_W + CELL_W - 6
                    points = int(st.scores[i, s, c, b])
                    if points >= 0:
                        self.text(surface, str(points), (x, y + 3), right=True)
                    elif s == to_move and preview is not None and preview[c, b] >= 0:
                        self.text(surface, f"[{int(preview[c, b])}]", (x, y + 3), GREY, right=True)
        y = y0 + (len(rules.boxes) + 1) * ROW_H
        pg.draw.line(surface, INK, (PAD, y), (self.size[0] - PAD, y), 2)
        totals = game.sheet_totals()
        rows = ("upper", "total", "saved rolls") if rules.saved_rolls else ("upper", "total")
        for k, name in enumerate(rows):
            self.text(surface, name, (PAD, y + 3 + k * ROW_H), font=self.big if k == 1 else None)
            for s in range(self.num_sheets):
                for c in range(self.cols):
                    if k and c < self.cols - 1:
                        continue
                    x = NAME_W + (s * self.cols + c) * CELL_W + CELL_W - 6
                    if k == 0:
                        value = int(st.cols[i, s, c, UPPER])
                    else:
                        value = totals[s] if k == 1 else game.saved_rolls_shown(s)
                    self.text(surface, str(value), (x, y + 3 + k * ROW_H), font=self.big if k == 1 else None,
                              right=True)
        return np.ascontiguousarray(pg.surfarray.pixels3d(surface).transpose(1, 0, 2), dtype=np.uint8)


class Window:
    """`render_mode="human"`: a pygame window showing the frames, at most `fps` a second."""

    def __init__(self, picture: Picture, fps: float, title: str):
        self.pygame = require_pygame("human")
        self.picture, self.fps, self.title = picture, fps, title
        self.screen = self.clock = None

    def show(self, frame: np.ndarray) -> None:
        pg = self.pygame
        if self.screen is None:
            pg.display.init()
            pg.display.set_caption(self.title)
            self.screen = pg.display.set_mode(self.picture.size)
            self.clock = pg.time.Clock()
        pg.event.pump()
        pg.surfarray.blit_array(self.screen, frame.transpose(1, 0, 2))
        pg.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None


class Renderer:
    """What an env made with render_mode "rgb_array" or "human" holds: `render(...)` draws a frame and returns
    it ("rgb_array") or shows it in the window and returns None ("human")."""

    def __init__(self, render_mode: str, rules, num_sheets: int, fps: float, title: str):
        self.args = (render_mode, rules, num_sheets, fps, title)
        self.picture = Picture(rules, num_sheets)
        self.window = Window(self.picture, fps, title) if render_mode == "human" else None

    def __getstate__(self):         # pygame fonts and windows do not pickle: an env's copy draws anew
        return self.args

    def __setstate__(self, args):
        self.__init__(*args)

    def render(self, game, dice, labels: list[str], move: Move | None):
        frame = self.picture.draw(game, dice, labels, move)
        if self.window is None:
            return frame
        self.window.show(frame)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()


def renderer(render_mode, rules, num_sheets: int, fps: float, title: str) -> Renderer | None:
    """A `Renderer` for the picture modes, None for None and "ansi" (text needs no pygame)."""
    return Renderer(render_mode, rules, num_sheets, fps, title) if render_mode in ("human", "rgb_array") else None
