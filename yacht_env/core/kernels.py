"""The compiled kernels every engine shares: dice from a seed, legal boxes, scoring.

All functions are numba-jitted and read a rule set's `Tables`. The single-game
model calls them one move at a time; the batched env and the solver call them
in loops.
"""
import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


@nb.njit(cache=True, inline="always")
def splitmix64(x):
    """One step of the splitmix64 hash (uint64 -> uint64)."""
    z = np.uint64(x) + _GOLD
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _splitmix64_np(x: np.ndarray) -> np.ndarray:
    """splitmix64 over a uint64 array (numpy, wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + _GOLD
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


# splitmix64(index) of every die index of sheet 0 (turn < 64, roll < 8, k < 8): half of die_value's work
_SHEET0_HASH = _splitmix64_np(np.arange(64 * 8 * 8, dtype=np.uint64))


@nb.njit(cache=True, inline="always")
def die_value(seed, sheet, turn, roll, k):
    """Face 1..6 of the k-th re-rolled die at (sheet, turn, roll) of the game with this seed."""
    index = ((sheet * 64 + turn) * 8 + roll) * 8 + k
    ih = _SHEET0_HASH[index] if index < _SHEET0_HASH.shape[0] else splitmix64(np.uint64(index))
    h = splitmix64(np.uint64(seed) ^ ih)
    return np.int8(1 + (((h >> np.uint64(32)) * np.uint64(6)) >> np.uint64(32)))


SEED_START = np.uint64(0x59A17E)


@nb.njit(cache=True, inline="always")
def seed_step(h, part):
    """One link of `dice_source.game_seed`'s chain: the hash h extended by one integer part."""
    return splitmix64(np.uint64(h) ^ splitmix64(np.uint64(part)))


@nb.njit(cache=True)
def seed_steps(h, parts, out):
    """out[j] = seed_step(h, parts[j])."""
    for j in range(parts.shape[0]):
        out[j] = seed_step(h, parts[j])


@nb.njit(cache=True)
def seed_pairs(hs, parts, out):
    """out[j] = seed_step(hs[j], parts[j])."""
    for j in range(parts.shape[0]):
        out[j] = seed_step(hs[j], parts[j])


_DECISION_SALT = np.uint64(0xA6E17D0C15105EED)


@nb.njit(cache=True)
def decision_uniforms_of(seeds, seats, rounds, rolls_used, stream, out):
    """out[j] = the uniform number in [0, 1) of decision j (see `dice_source.decision_uniforms`)."""
    salt = splitmix64(np.uint64(stream) ^ _DECISION_SALT)
    for j in range(seeds.shape[0]):
        index = (np.uint64(seats[j]) * np.uint64(64) + np.uint64(rounds[j])) * np.uint64(8) + np.uint64(rolls_used[j])
        h = splitmix64(splitmix64(np.uint64(seeds[j]) ^ salt) ^ splitmix64(index))
        out[j] = (h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True, inline="always")
def dice_roll(D, dice):
    """Roll index of the dice (in any order) among the rolls of `D` (a `Dice` or `FixedDice`, e.g. `Tables.dice`)."""
    code = 0
    m = 1
    for i in range(D.n):
        code += (dice[i] - 1) * m
        m *= 6
    return D.roll_index[code]


@nb.njit(cache=True)
def box_options(T, filled, yacht50, r, out):
    """Points of roll r in every box of one sheet column, -1 where the rules forbid it.

    filled: bit b set when box b is filled; yacht50: the Yacht box holds 50. With forced order every box
    but the first open one is -1.
    Returns the extra-Yacht bonus that scoring this roll pays (the same for any box).

    A call, not inlined: its callers loop over rolls or tables, and an inlined copy takes and drops a reference
    to every array of T (the dice tables' too) at each pass, atomic operations that two threads then contend
    for (BENCHMARKS.md, "Agents at engine speed").
    """
    nbox = T.n_boxes
    face = T.roll_yacht[r]
    joker = False
    if face > 0 and T.joker_trigger > 0 and T.yacht_box >= 0 and (filled >> T.yacht_box) & 1:
        joker = T.joker_trigger == 1 or yacht50
    if not joker:
        for b in range(nbox):  # branch-free: scores are >= 0, and x | -1 == -1
            out[b] = T.score[b, r] | -((filled >> b) & 1)
    elif T.joker_forced:
        match = T.face_box[face]
        lower_open = False
        for b in range(nbox):
            if T.box_face[b] == 0 and not (filled >> b) & 1:
                lower_open = True
        for b in range(nbox):
            out[b] = -1
            if (filled >> b) & 1:
                continue
            if match >= 0 and not (filled >> match) & 1:
                if b == match:
                    out[b] = T.score[b, r]
            elif lower_open:
                if T.box_face[b] == 0:
                    out[b] = T.joker_score[b, r]
            else:
                out[b] = T.score[b, r]
    else:
        match = T.face_box[face]
        use_joker = not T.joker_needs_upper or match < 0 or (filled >> match) & 1
        for b in range(nbox):
            if (filled >> b) & 1:
                out[b] = -1
            elif T.box_face[b] == 0 and use_joker:
                out[b] = T.joker_score[b, r]
            else:
                out[b] = T.score[b, r]
    if T.forced_order:  # only the first open box (the rules refuse a joker with forced order)
        first = True
        for b in range(nbox):
            if out[b] >= 0 and not first:
                out[b] = -1
            first = first and (filled >> b) & 1 == 1
    if face > 0 and yacht50 and T.extra_bonus > 0:
        return T.extra_bonus
    return 0


@nb.njit(cache=True, inline="always")
def upper_bonus_gain(T, upper_before, points, box):
    """Upper bonus paid when `points` in `box` lift the upper total past the threshold."""
    if T.upper_bonus == 0 or T.box_face[box] == 0:
        return 0
    if upper_before < T.upper_threshold <= upper_before + points:
        return T.upper_bonus
    return 0


@intrinsic
def prefetch(typingctx, arr, index):
    """Ask the CPU to bring the cache line of arr[index] (index: an integer, or a tuple of one per
    dimension) into its caches ahead of a read; changes nothing else."""
    if not isinstance(arr, types.Array):
        return None
    if isinstance(index, types.Integer):
        if arr.ndim != 1:
            return None
        count = 1
    elif isinstance(index, types.BaseTuple) and len(index) == arr.ndim and \
            all(isinstance(t, types.Integer) for t in index):
        count = arr.ndim
    else:
        return None

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        if count == 1 and isinstance(idxty, types.Integer):
            idx = [context.cast(builder, args[1], idxty, types.intp)]
        else:
            idx = [context.cast(builder, builder.extract_value(args[1], k), idxty[k], types.intp)
                   for k in range(count)]
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])   # read, keep in all levels, data
        return context.get_dummy_value()
    return types.void(arr, index), codegen
