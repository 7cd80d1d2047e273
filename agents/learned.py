"""`learned:PATH`: plays a policy trained by `yacht train`, from its model file, for one game or many.

    agent = LearnedAgent("models/ppo-yacht.pt")        # spec: learned:models/ppo-yacht.pt

Only the policy half of the network is kept (`PolicyNet`), as numpy arrays, and it runs in compiled
code, one game per row with the same operations in the same order whatever the batch: a game gets the
same moves played alone or among thousands, and playing needs neither torch nor stable-baselines3
(`agents.model_file` reads the file). The observation is the one the environment it was trained on builds -- its own
sheet (`yacht_env.envs.obs`) for a model trained alone, every sheet of the table (`yacht_env.envs.table_obs`,
as `YachtVs-v0` shows it) for one trained at a table of several seats -- plus the features the model
was trained with (`agents.features`). Each move is the most likely legal action
(`deterministic=True`, the first on ties) or a sample from the policy, drawn with the decision's
uniform number (`yacht_env.core.dice_source.decision_uniforms`).

Safety: a model file comes from whoever made it. It is read by `agents.model_file.read_model`, which
unpickles nothing but a state dict of arrays (no code in the file runs) and checks every field before
the network is built; still, the weights decide every move, so play only models from sources you trust.
A model refuses rules other than the ones it was trained under, unless told to insist
(`learned?insist=1:PATH`), which plays them with a warning; a model trained at a table of several
seats refuses tables with another number of sheets (its observation would not fit).
"""
import numba as nb
import numpy as np

from yacht_env.core.actions import num_actions
from yacht_env.core.dice_source import decision_uniforms
from yacht_env.envs.options import narrow_masks

from .base import Agent, BatchView
from .features import extra_size, observation_size, view_input
from .lookahead import Critic, lookahead_actions, refuse_reason
from .model_file import ModelFileError, check_rules, check_table, read_model
from .sb3_zip import is_sb3_zip, read_sb3_zip

ACTIVATIONS = ("relu", "tanh")


BLOCK = 32   # rows that share each weight row while it is in cache


@nb.njit(cache=True, inline="always")
def _block(x, blk, weights, biases, dims, tanh):
    """The MLP's outputs (layers dims[0] -> ... -> dims[-1], weights stored input-major) for block `blk`
    of BLOCK rows of x: (first row, rows in the block, a buffer whose row r holds row first + r's
    outputs). Every output of a row sums its inputs in the same order whatever the block, so a row's
    result does not depend on the other rows."""
    n = x.shape[0]
    lo = blk * BLOCK
    m = min(n, lo + BLOCK) - lo
    width = 0
    for d in dims:
        width = max(width, d)
    H = np.zeros((BLOCK, width), np.float32)
    G = np.empty((BLOCK, width), np.float32)
    for r in range(m):
        H[r, :dims[0]] = x[lo + r]
    w0 = 0
    b0 = 0
    layers = dims.shape[0] - 1
    for layer in range(layers):
        din, dout = dims[layer], dims[layer + 1]
        for r in range(m):
            G[r, :dout] = biases[b0:b0 + dout]
        for k in range(din):
            w = weights[w0 + k * dout:w0 + (k + 1) * dout]
            for r in range(m):
                v = H[r, k]
                if v != 0.0:
                    g = G[r]
                    for o in range(dout):
                        g[o] += v * w[o]
        if layer < layers - 1:
            for r in range(m):
                for o in range(dout):
                    G[r, o] = np.tanh(G[r, o]) if tanh else max(G[r, o], np.float32(0.0))
        w0 += din * dout
        b0 += dout
        H, G = G, H
    return lo, m, H


@nb.njit(cache=True, parallel=True)
def forward(x, weights, biases, dims, tanh, out):
    """out[j] = the MLP's outputs for input x[j] (`_block`), rows in blocks of BLOCK."""
    n_out = dims[dims.shape[0] - 1]
    for blk in nb.prange((x.shape[0] + BLOCK - 1) // BLOCK):
        lo, m, H = _block(x, blk, weights, biases, dims, tanh)
        for r in range(m):
            out[lo + r, :] = H[r, :n_out]


@nb.njit(cache=True, parallel=True)
def choose(x, weights, biases, dims, tanh, mask, u, out):
    """out[j] = the action of row j: the MLP's logits for input x[j] (`_block`), the best legal one, or
    with u[j] >= 0 a sample drawn by u[j]."""
    n_out = dims[dims.shape[0] - 1]
    for blk in nb.prange((x.shape[0] + BLOCK - 1) // BLOCK):
        lo, m, H = _block(x, blk, weights, biases, dims, tanh)
        for r in range(m):
            j = lo + r
            h = H[r]
            best, top = -1, -np.inf
            for a in range(n_out):
                if mask[j, a] and h[a] > top:
                    best, top = a, h[a]
            if u[j] >= 0.0:
                total = 0.0
                for a in range(n_out):
                    if mask[j, a]:
                        total += np.exp(np.float64(h[a]) - top)
                left = u[j] * total
                for a in range(n_out):
                    if mask[j, a]:
                        best = a
                        left -= np.exp(np.float64(h[a]) - top)
                        if left < 0.0:
                            break
            out[j] = best


HEADS = {"policy": ("policy_net", "action_net"), "value": ("value_net", "value_net")}


class PolicyNet:
    """One head of a model file's network as numpy arrays: its hidden layers and output layer.

    state: the SB3 policy's state dict (tensors or arrays); policy: the config's `policy` section;
    head: "policy" (logits over the actions, the default) or "value" (the critic's one output).
    """

    def __init__(self, state: dict, policy: dict, head: str = "policy"):
        arrays = {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v, np.float32)
                  for k, v in state.items()}
        hidden, last = HEADS[head]
        layers = []
        while f"mlp_extractor.{hidden}.{2 * len(layers)}.weight" in arrays:
            i = 2 * len(layers)
            layers.append((arrays[f"mlp_extractor.{hidden}.{i}.weight"], arrays[f"mlp_extractor.{hidden}.{i}.bias"]))
        layers.append((arrays[f"{last}.weight"], arrays[f"{last}.bias"]))
        dims = [layers[0][0].shape[1]] + [w.shape[0] for w, _ in layers]
        for (w, b), din, dout in zip(layers, dims, dims[1:]):
            if w.shape != (dout, din) or b.shape != (dout,):
                raise ValueError(f"policy layer of shape {w.shape} does not follow a layer of {din} units")
        if policy.get("activation") not in ACTIVATIONS:
            raise ValueError(f"unknown activation {policy.get('activation')!r}; allowed: {', '.join(ACTIVATIONS)}")
        self.dims = np.array(dims, np.int64)
        self.weights = np.concatenate([np.ascontiguousarray(w.T).ravel() for w, _ in layers])
        self.biases = np.concatenate([b for _, b in layers])
        self.tanh = policy["activation"] == "tanh"

    @property
    def inputs(self) -> int:
        return int(self.dims[0])

    @property
    def outputs(self) -> int:
        return int(self.dims[-1])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """(n, outputs) float32: the network's outputs for rows of inputs x."""
        x = np.ascontiguousarray(x, np.float32)
        out = np.empty((len(x), self.outputs), np.float32)
        forward(x, self.weights, self.biases, self.dims, self.tanh, out)
        return out

    def act(self, x: np.ndarray, mask: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
        """Actions for rows of inputs x under bool masks: the best legal ones, or (u given) samples."""
        x = np.ascontiguousarray(x, np.float32)
        out = np.empty(len(x), np.int64)
        u = np.full(len(x), -1.0) if u is None else np.asarray(u, np.float64)
        choose(x, self.weights, self.biases, self.dims, self.tanh, np.ascontiguousarray(mask, np.bool_), u, out)
        return out


class NetPlayer(Agent):
    """Plays a `PolicyNet` with the observation, features and masks of the config it was trained with (a dict)."""

    name = "learned"
    trusted = True

    def __init__(self, net: PolicyNet, config: dict, deterministic: bool = True, source: str = "the model",
                 critic: Critic | None = None, lookahead: int = 0):
        self.net, self.config, self.deterministic, self.source = net, config, deterministic, source
        self.distinct_holds = bool(config.get("distinct_holds", False))
        self.critic, self.lookahead = critic, int(lookahead)

    def _sheets(self, num_sheets: int) -> int:
        """Sheets the observation covers at a table of `num_sheets`: 1 for a model trained alone."""
        return 1 if self.config.get("num_players", 1) == 1 else num_sheets

    def check_rules(self, rules, num_players) -> None:
        """A model's check is cheap: its inputs and actions against the table's (`prepare`)."""
        self.prepare(rules, num_players)

    def prepare(self, rules, num_players) -> None:
        sheets = self._sheets(rules.check_players(num_players))
        need = (observation_size(rules, sheets) + extra_size(self.config, rules), num_actions(rules))
        have = (self.net.inputs, self.net.outputs)
        if need != have:
            raise ValueError(f"{self.source} has inputs {have[0]} and actions {have[1]}; {num_players} players "
                             f"under rules {rules.name!r} need {need[0]} and {need[1]}")

    def act_batch(self, view: BatchView) -> np.ndarray:
        x = view_input(view, self.config, self._sheets(view.num_sheets))
        if x.shape[1] != self.net.inputs:
            raise ValueError(f"{self.source} takes {self.net.inputs} inputs; a table of {view.num_sheets} sheets "
                             f"under rules {view.rules.name!r} gives {x.shape[1]}")
        mask = view.mask.astype(bool)
        if self.lookahead:
            return lookahead_actions(self.net, self.critic, view.state, view.rows, mask, view.rules, self.lookahead,
                                     self.distinct_holds)
        if self.distinct_holds:
            mask = narrow_masks(mask, view.roll, view.rules.dice)
        u = None if self.deterministic else decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used)
        return self.net.act(x, mask, u)


class LearnedAgent(NetPlayer):
    """A policy trained by `yacht train` (a `.pt` model file), played as it was trained."""

    def __init__(self, path, deterministic: bool = True, insist: bool = False, lookahead: int = 0):
        self.path, self.insist = str(path), bool(insist)
        self.doc = read_model(path)
        self.warnings: list[str] = []
        config = self.doc["config"]
        critic = None
        if lookahead:
            why = refuse_reason(config)
            if why:
                raise ValueError(f"model {self.path} cannot look ahead: {why}")
            critic = Critic(PolicyNet(self.doc["policy"], config["policy"], head="value"), config)
        super().__init__(PolicyNet(self.doc["policy"], config["policy"]), config, deterministic,
                         source=f"model {self.path}", critic=critic, lookahead=lookahead)

    def prepare(self, rules, num_players) -> None:
        """Refuse rules or tables the model cannot play; other rules of the same shape only with `insist`
        (then the warning is kept in `warnings`)."""
        check_table(self.doc, rules, num_players, self.path)
        warning = check_rules(self.doc, rules, self.path, self.insist)
        if warning and warning not in self.warnings:
            self.warnings.append(warning)


class Sb3Agent(LearnedAgent):
    """A stable-baselines3 / sb3-contrib model (`model.save` -> `.zip`: PPO, A2C, MaskablePPO or DQN with an
    MlpPolicy of any `net_arch`) trained on `Yacht-v0` or `YachtVs-v0`, read by `agents.sb3_zip` (nothing
    unpickled). Its layout is found where it is seated: a model whose inputs are `Yacht-v0`'s observation
    plays its own sheet at any table; one whose inputs are `YachtVs-v0`'s at a table of S sheets plays
    tables of S sheets. Moves as `NetPlayer` plays them (a DQN's Q-values as the logits); no look-ahead
    (the file records no reward scale for a critic) and no insisting (it records no rules)."""

    def __init__(self, path, deterministic: bool = True, insist: bool = False, lookahead: int = 0):
        self.path, self.insist, self.warnings = str(path), bool(insist), []
        if lookahead:
            raise ModelFileError(f"model {self.path} cannot look ahead: a stable-baselines3 file records no "
                                 "reward scale for its critic (lookahead works on `yacht train` models)")
        self.doc = read_sb3_zip(path)
        self.sheets = 1
        config = {"num_players": 1, "policy": {"activation": self.doc["activation"]}}
        super(LearnedAgent, self).__init__(PolicyNet(self.doc["state"], config["policy"]), config, deterministic,
                                           source=f"model {self.path} ({self.doc['algorithm']})")

    def _sheets(self, num_sheets: int) -> int:
        return self.sheets

    def prepare(self, rules, num_players) -> None:
        """Find the layout the model takes at this table (its own sheet, or every sheet) and refuse a
        table or rules whose observation or action count it does not fit (ModelFileError, one line)."""
        sheets = rules.check_players(num_players)
        fits = [s for s in dict.fromkeys((1, sheets)) if observation_size(rules, s) == self.net.inputs]
        if not fits or self.net.outputs != num_actions(rules):
            table = f" or {observation_size(rules, sheets)} (every sheet, as YachtVs-v0)" if sheets > 1 else ""
            raise ModelFileError(f"{self.source} takes {self.net.inputs} inputs and {self.net.outputs} actions; "
                                 f"{num_players} player{'s' if num_players != 1 else ''} under rules {rules.name!r} "
                                 f"give {observation_size(rules, 1)} (its own sheet, as Yacht-v0){table} and "
                                 f"{num_actions(rules)} actions")
        self.sheets = fits[0]


def learned(path, deterministic: bool = True, insist: bool = False, lookahead: int = 0) -> LearnedAgent:
    """`learned:PATH`: a stable-baselines3 `.zip` (`Sb3Agent`) or a `yacht train` model file (`LearnedAgent`)."""
    cls = Sb3Agent if is_sb3_zip(path) else LearnedAgent
    return cls(path, deterministic=deterministic, insist=insist, lookahead=lookahead)
