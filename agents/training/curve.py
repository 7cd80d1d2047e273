"""The learning curve: evaluation means (with 95% CI), rates and, at a table, win shares against env steps, as a PNG."""
import csv
import io
import os
from pathlib import Path

from yacht_env.safe_file import (
    NoSuchFile,
    atomic_writer,
    open_append,
    open_read,
    read_text,
)

MAX_CURVE_BYTES = 64 << 20      # a row is ~150 bytes: hundreds of thousands of evaluations
MAX_HEADER_BYTES = 4096

FIELDS = ("timesteps", "wall_seconds", "train_mean", "eval_mean", "eval_ci95", "bonus_rate", "yacht_rate",
          "pct_of_optimal", "win_share", "win_ci95")


def append_row(path, row: dict) -> None:
    """Add one evaluation to the CSV log (header written on first use; a log begun with fewer columns
    keeps its own)."""
    path = Path(path)
    names = list(FIELDS)
    try:
        with open_read(path, "learning curve", MAX_CURVE_BYTES) as f:
            header = f.readline(MAX_HEADER_BYTES).decode("utf-8", "replace")
        names = next(csv.reader([header]), None) or names
        new = False
    except NoSuchFile:
        new = True
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=names, extrasaction="ignore")
    if new:
        w.writeheader()
    w.writerow({k: row.get(k, "") for k in names})
    fd = open_append(path, "learning curve")     # never through a planted link
    try:
        os.write(fd, buf.getvalue().encode("utf-8"))
    finally:
        os.close(fd)


def read_rows(path) -> list[dict]:
    """The rows of a CSV log (a regular file of at most MAX_CURVE_BYTES), numbers as floats."""
    text = read_text(path, MAX_CURVE_BYTES, "learning curve")
    return [{k: (float(v) if v not in ("", "None", None) else None) for k, v in r.items()}
            for r in csv.DictReader(io.StringIO(text, newline=""))]


def plot_curve(csv_path, png_path, title: str, optimum: float | None = None,
               xlabel: str = "env steps (millions)", equal_share: float | None = None) -> None:
    """Draw the CSV log: mean score (eval with CI, training episodes) on top, rates below; with
    `equal_share` (a table's 1 / seats) the evaluation win share (with CI) against it on top instead, the
    mean score in the middle (training returns are then outcomes, not scores, and are not drawn)."""
    import matplotlib   # drawing only: its import costs about half a second
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after the Agg backend: no window

    rows = read_rows(csv_path)
    if not rows:
        return
    x = [r["timesteps"] / 1e6 for r in rows]
    if equal_share is not None:
        fig, (top, ax, ax2) = plt.subplots(3, 1, figsize=(7, 8), sharex=True, gridspec_kw={"height_ratios": [2, 1, 1]})
        share = [100 * (r.get("win_share") or 0) for r in rows]
        half = [100 * (r.get("win_ci95") or 0) for r in rows]
        top.plot(x, share, "o-", ms=3, label="evaluation win share (deterministic, fixed seeds)")
        top.fill_between(x, [m - c for m, c in zip(share, half)], [m + c for m, c in zip(share, half)], alpha=0.3)
        top.axhline(100 * equal_share, color="k", ls="--", lw=1, label=f"an equal share {100 * equal_share:.1f}%")
        top.set_ylabel("win share %")
        top.set_title(title)
        top.grid(alpha=0.3)
        top.legend(loc="lower right", fontsize=8)
        title = None
    else:
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    ev = [r["eval_mean"] for r in rows]
    ci = [r["eval_ci95"] or 0.0 for r in rows]
    ax.plot(x, ev, "o-", ms=3, label="evaluation (deterministic, fixed seeds)")
    ax.fill_between(x, [m - c for m, c in zip(ev, ci)], [m + c for m, c in zip(ev, ci)], alpha=0.3)
    tr = [(xi, r["train_mean"]) for xi, r in zip(x, rows) if r["train_mean"] is not None]
    if tr and equal_share is None:
        ax.plot(*zip(*tr), "-", alpha=0.7, label="training episodes (sampled actions)")
    if optimum is not None:
        ax.axhline(optimum, color="k", ls="--", lw=1, label=f"optimal play {optimum:.1f}")
    ax.set_ylabel("mean score")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax2.plot(x, [100 * (r["bonus_rate"] or 0) for r in rows], "o-", ms=3, label="upper bonus %")
    ax2.plot(x, [100 * (r["yacht_rate"] or 0) for r in rows], "o-", ms=3, label="Yacht scored %")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("% of games")
    ax2.grid(alpha=0.3)
    ax2.legend(loc="upper left", fontsize=8)
    _save(fig, png_path)


def plot_against_wall(curves: dict, png_path, title: str, marks=(240.0, 245.0)) -> None:
    """Several runs' evaluation means (with 95% CI) against wall-clock minutes on one plot, `curves` mapping a
    label to a CSV log; dotted lines at the `marks` (the scores a run is timed to)."""
    import matplotlib   # drawing only: its import costs about half a second
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after the Agg backend: no window

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, path in curves.items():
        rows = read_rows(path)
        x = [r["wall_seconds"] / 60 for r in rows]
        ev = [r["eval_mean"] for r in rows]
        ci = [r["eval_ci95"] or 0.0 for r in rows]
        ax.plot(x, ev, "o-", ms=3, label=label)
        ax.fill_between(x, [m - c for m, c in zip(ev, ci)], [m + c for m, c in zip(ev, ci)], alpha=0.25)
    for m in marks:
        ax.axhline(m, color="k", ls=":", lw=1)
    ax.set_xlabel("wall-clock minutes")
    ax.set_ylabel("evaluation mean score")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    _save(fig, png_path)


def _save(fig, png_path) -> None:
    """Write a curve figure as a PNG (never through a planted link) and let it go."""
    import matplotlib.pyplot as plt   # drawing only (imported by the figure's maker)
    fig.tight_layout()
    with atomic_writer(png_path, "learning curve plot") as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)
