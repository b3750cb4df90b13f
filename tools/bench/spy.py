"""``arena bench spy``: a spy at scale. Seeded random matches of every game through the real
match runner and :func:`server.render.render_for`; every message a seat or the spectators
receive is searched for what that viewer may not know at that moment.

What is secret is derived from the engine's state (and the match driver's) at the moment the
message is sent, never from the rendered views (a leaky view must not vouch for itself):

* every game: the match's RNG seed and the generator's current state, in decimal or hex,
  anywhere in the message's JSON text (a number, or inside any string), and as the 8 bytes a
  msgpack integer is made of in the msgpack frame;
* Battle Line: for a seat, the undrawn cards of both decks (except those it put back on a
  deck itself with Scout) and the cards of the other seat's hand (except those it knows to
  be there); for the spectators both hands too. A hidden card's name must not appear as a
  word anywhere in the message (any field, key or text). The decks' order is not modelled
  by the engine (each draw is a chance node of the seeded generator), so "the next card" is
  one of the undrawn ones, and the seed that decides it is searched for as well;
* simultaneous games (Boundary): another seat's committed plan until the resolution, as the
  plan's ``"piece":[x,y]`` entries, its text (``piece>x,y``), a ``[piece, x0, y0, x, y]``
  walk or a piece shown at its target. Moves that cannot be told from public facts (a piece
  staying put, a move the previous turn's public plans already hold) are not counted: no
  message could reveal them.

A rejected action's ``illegal_action`` error may name a card the viewer does not hold (the
card it sent, or a claim's counter-example drawn from every unseen troop card): its
``message`` and ``details`` are checked instead by re-checking the same action on states
the viewer cannot tell apart from the real one (:meth:`engine.core.Game.resample_hidden`):
the error must come out the same, word for word.

Besides answering each request with a random legal action (or a random plan), the spy's
seats now and then answer wrongly (a stale request id, a malformed action, another seat's
action, an old action of their own, an answer without an open request, in Battle Line a
claim of any flag, so that unprovable claims bring counter-examples), time out (a loss,
or the game's default action), disconnect and come back, and a seat or a spectator resyncs
(``match_start`` and the open request again); a spectator asks for the live replay with
views, and, once over, the finished replay. Every viewer asked for views, so every
``events`` message carries one. Each match is encoded as JSON or msgpack, alternately, and
plays options drawn from its seed (:func:`match_options`).

Figures: matches/s and messages checked per game, and leaks found (0). The first leak is
printed with the seed that reproduces it, and the exit status is then 1 (2 if the spy's own
:func:`self_test` fails: a spy that misses planted leaks proves nothing).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.random_bot import random_answer
from engine import registry
from engine.battleline.rules import OPTION_VALUES as BATTLELINE_OPTIONS
from engine.battleline.rules import hidden_cards
from engine.core import Game, IllegalAction, State
from engine.rng import Rng
from protocol.codec import encode_json, encode_msgpack
from protocol.messages import Encoding
from server.clocks import Clock
from server.render import SeatInfo, render_for
from server.runner import MatchRunner, Outgoing
from tools.bench.measure import stderr_progress

HELP = ("spy: seeded random matches of every game, every message a seat or spectator gets "
        "searched for hidden cards, plans and the seed")

DEFAULT_MATCHES = 10_000
"""Matches per game with a secret beyond the seed unless ``--matches`` says otherwise."""

SEED_ONLY_SHARE = 100
"""A game whose only secret is the seed (perfect information, turn by turn) plays this many
times fewer matches: its random matches are long (a random Chexers match sends some 3,000
messages, a Battle Line one 370) and the seed is searched for in every message of each."""

BOUNDARY_TURNS = (1, 12)
"""The turn limits a spied Boundary match is drawn from: its secret (a plan pending) is the
same every turn, and a whole random match to turn 100 costs seconds."""

DECISION_MS = 10_000
"""Each decision's limit: the spy's clock only moves past it on purpose (a timeout)."""

Viewer = int | None
_WORD = re.compile(r"(?<![0-9A-Za-z])[0-9A-Z][0-9A-Za-z]*")
"""The words a card's name may be: those that begin with a digit or a capital (``7r``,
``10b``, ``Scout``); cheaper to find than every word."""


# ---- what a viewer must not see --------------------------------------------------------------


@dataclass(frozen=True)
class Secrets:
    """What one viewer may not know at one moment."""

    cards: frozenset[str] = frozenset()
    """Names of the cards hidden from the viewer (searched as words)."""
    texts: Mapping[str, str] = field(default_factory=dict)
    """Spelling in a JSON text, lower case -> what it reveals (the seed in decimal and hex,
    …); searched for in any case."""
    patterns: Sequence[tuple[re.Pattern[str], str]] = ()
    """Regular expressions over the JSON text -> what they reveal (a plan's walks)."""
    binary: Mapping[bytes, str] = field(default_factory=dict)
    """Bytes in a msgpack frame -> what they reveal."""


@dataclass
class Leak:
    """A message that carries a secret of its viewer."""

    game: str
    seed: int
    encoding: str
    step: int
    viewer: Viewer
    what: str
    message: Mapping[str, Any]

    def report(self) -> str:
        who = "the spectators" if self.viewer is None else f"seat {self.viewer}"
        text = json.dumps(self.message, ensure_ascii=False)
        if len(text) > 2_000:
            text = text[:2_000] + " …"
        return (f"LEAK in {self.game} (seed {self.seed}, {self.encoding}, step {self.step}): "
                f"a {self.message.get('type')!r} message to {who} reveals {self.what}\n"
                f"  {text}")


def number_spellings(numbers: Mapping[int, str]) -> tuple[dict[str, str], dict[bytes, str]]:
    """Each secret number as JSON text spells it (decimal; hex in a string) and as a msgpack
    integer's 8 bytes."""
    texts: dict[str, str] = {}
    binary: dict[bytes, str] = {}
    for number, name in numbers.items():
        texts[str(number)] = f"{name} (decimal)"
        texts[f"{number:x}"] = f"{name} (hex)"
        binary[number.to_bytes(8, "big")] = f"{name} (msgpack integer)"
    return texts, binary


def battleline_cards(state: State, viewer: Viewer) -> frozenset[str]:
    """The cards of a Battle Line state hidden from ``viewer``: see the module docstring."""
    return frozenset(hidden_cards(state, viewer))


def plan_patterns(state: State, plans: Mapping[int, Any]
                  ) -> tuple[dict[str, str], list[tuple[re.Pattern[str], str]]]:
    """The JSON spellings of Boundary plans committed and not yet revealed: see the module
    docstring. Moves that public facts already spell are left out."""
    last = state.get("last") or {}
    public = {(piece, tuple(target)) for plan in last.get("plans", ())
              for piece, target in plan.items()}
    texts: dict[str, str] = {}
    patterns: list[tuple[re.Pattern[str], str]] = []
    for seat, plan in plans.items():
        for piece, target in plan["moves"].items():
            x, y = target
            if state["pieces"][int(piece)] == [x, y] or (piece, (x, y)) in public:
                continue
            what = f"seat {seat}'s pending plan (piece {piece} to [{x}, {y}])"
            texts[f'"{piece}":[{x},{y}]'] = what
            texts[f"{piece}>{x},{y}"] = what  # as Boundary.action_text writes a plan
            patterns.append((re.compile(rf"\[{piece},-?\d+,-?\d+,{x},{y}\]"), what))
            # A piece of a view (a treasure has an id, x and y too, but no team).
            patterns.append((re.compile(rf'"id":{piece},"team":\d+,"x":{x},"y":{y}[,}}]'),
                             what))
    return texts, patterns


def secrets_of(runner: MatchRunner, viewer: Viewer) -> Secrets:
    """What ``viewer`` may not know in ``runner``'s match now."""
    match = runner.match
    # The seed last: before the first draw the generator's state is the seed itself.
    texts, binary = number_spellings({match.rng.getstate(): "the RNG's state",
                                      match.seed: "the seed"})
    cards: frozenset[str] = frozenset()
    if runner.game.info.name == "battleline":
        cards = battleline_cards(runner.state, viewer)
    patterns: list[tuple[re.Pattern[str], str]] = []
    if runner.game.info.simultaneous:
        plans = {seat: match.commitment(seat) for seat in match.committed() if seat != viewer}
        if plans and runner.game.info.name == "boundary":
            plan_texts, patterns = plan_patterns(runner.state, plans)
            texts.update(plan_texts)
    return Secrets(cards, texts, patterns, binary)


def find_leak(message: Mapping[str, Any], secrets: Secrets, encoding: Encoding,
              unsearched_words: Iterable[str] = ()) -> str | None:
    """What of ``secrets`` the message reveals (``None``: nothing). The message is searched
    as its JSON text (every field, key and string) and, for msgpack, also as its frame.
    ``unsearched_words``: top-level fields whose words are not searched for cards (checked
    otherwise, see :func:`error_depends_on_hidden`); the seed and plans are still searched
    there."""
    text = encode_json(message)
    if secrets.cards:
        skip = set(unsearched_words)
        searched = (text if not skip else
                    encode_json({k: v for k, v in message.items() if k not in skip}))
        found = secrets.cards.intersection(_WORD.findall(searched))
        if found:
            return f"hidden card(s) {', '.join(sorted(found))}"
    lowered = text.lower()
    for spelling, what in secrets.texts.items():
        if spelling in lowered:
            return what
    for pattern, what in secrets.patterns:
        if pattern.search(text):
            return what
    if encoding == "msgpack" and secrets.binary:
        frame = encode_msgpack(message)
        for spelling_bytes, what in secrets.binary.items():
            if spelling_bytes in frame:
                return what
    return None


def error_depends_on_hidden(game: Game, state: State, seat: int, action: Any,
                            error: Mapping[str, Any], rng: Rng, tries: int = 2) -> str | None:
    """Whether the ``illegal_action`` error ``seat`` got for ``action`` would read otherwise
    had the hidden information been different: the action is checked again on ``tries``
    states the seat cannot tell from ``state``."""
    for _ in range(tries):
        other = game.resample_hidden(state, seat, rng)
        try:
            game.check_action(other, seat, action)
        except IllegalAction as exc:
            details = {**exc.details, "rule": exc.rule}
            if exc.code == "illegal_action" and exc.message == error.get("message") \
                    and details == error.get("details", {}):
                continue
            return (f"an error that depends on hidden information ({error.get('message')!r} "
                    f"became {exc.message!r})")
        return "an error that depends on hidden information (the action is legal elsewhere)"
    return None


def self_test() -> list[str]:
    """Leaky messages the spy must catch, one per kind of secret; returns what it missed
    (nothing, or the spy cannot be trusted)."""
    missed: list[str] = []
    game = registry.get("battleline")
    runner = MatchRunner("spy-self-test", game, [SeatInfo("a", "bot"), SeatInfo("b", "bot")],
                         None, (1 << 62) + 12345)
    runner.start(0.0)
    seed = runner.match.seed
    request = render_for(runner, 0, "request", request_id="r", clocks_ms=None)
    secrets = secrets_of(runner, 0)
    leaky: dict[str, dict[str, Any]] = {
        "the opponent's hand in a request": {**request, "view": {
            **request["view"], "hand": request["view"]["hand"] + runner.state["hands"][1]}},
        "an undrawn card in a string": {
            **request, "note": f"next: {runner.state['decks']['troop'][0]}!"},
        "the seed as a number": {**request, "seed": seed},
        "the seed in hex inside a string": {**request, "match_id": f"m-{seed:X}"},
    }
    if find_leak(request, secrets, "json") is not None:
        missed.append("a clean request is reported as a leak")
    for name, message in leaky.items():
        for encoding in ("json", "msgpack"):
            if find_leak(message, secrets, encoding) is None:  # type: ignore[arg-type]
                missed.append(f"{name} ({encoding})")
    if find_leak({"type": "x", "n": seed}, Secrets(binary=secrets.binary), "msgpack") is None:
        missed.append("the seed in a msgpack frame")
    # Boundary: one seat's plan in, the other's not yet.
    boundary = registry.get("boundary")
    b = MatchRunner("spy-self-test-b", boundary, [SeatInfo("a", "bot"), SeatInfo("b", "bot")],
                    None, (1 << 62) + 7)
    b.start(0.0)
    piece, (x, y) = "0", b.state["pieces"][0]
    plan = {"turn": b.state["turn"], "moves": {piece: [x + 3, y]}}
    b.receive_action(0, b.pending_request_id(0), plan, 0.0)
    spectators = secrets_of(b, None)
    if find_leak({"type": "events", "events": [{"type": "committed", "seat": 0, "action": plan}]},
                 spectators, "json") is None:
        missed.append("a pending Boundary plan in an event")
    if find_leak({"type": "error", "message": f"not {boundary.action_text(plan)}"},
                 spectators, "json") is None:
        missed.append("a pending Boundary plan as text")
    if find_leak({"type": "events", "walks": [[0, x, y, x + 3, y]]}, spectators, "json") is None:
        missed.append("a pending Boundary plan as a walk")
    moved = {"id": 0, "team": 0, "x": x + 3, "y": y, "blob": 0}
    if find_leak({"type": "match_start", "view": {"pieces": [moved]}}, spectators,
                 "json") is None:
        missed.append("a piece shown at its pending target")
    treasure = {"id": 0, "x": x + 3, "y": y, "value": 1}
    if find_leak({"type": "x", "view": {"treasures": [treasure]}}, spectators, "json"):
        missed.append("a treasure where a pending plan goes counted as the plan")
    if find_leak({"type": "x", "note": "ok"}, secrets_of(b, 0), "json") is not None:
        missed.append("a seat's own plan counted as its secret")
    # An error that tells a seat a card the opponent holds (the differential check).
    hand = runner.state["hands"][1]
    fake = {"message": f"the opponent holds {hand[0]}", "details": {"rule": "not_in_hand"}}
    action = {"type": "pass"}
    if error_depends_on_hidden(game, runner.state, 0, action, fake, Rng(1)) is None:
        missed.append("an error that names a hidden card")
    return missed


# ---- the matches -----------------------------------------------------------------------------


@dataclass
class Tally:
    """One game's figures."""

    matches: int = 0
    messages: int = 0
    errors: int = 0
    resyncs: int = 0
    timeouts: int = 0
    seconds: float = 0.0
    leaks: list[Leak] = field(default_factory=list)


@dataclass
class Chances:
    """How often, per step, the spy does each unusual thing."""

    wrong: float = 0.05
    resync: float = 0.03
    reconnect: float = 0.01
    live_replay: float = 0.005
    timeout_default: float = 0.05
    timeout_loss: float = 0.0005
    finished_replay: float = 0.1


class SpyMatch:
    """One random match played by the spy, every message checked as it comes."""

    def __init__(self, game: Game, seed: int, encoding: Encoding, tally: Tally,
                 chances: Chances, match_id: str = "spy") -> None:
        self.game, self.seed, self.encoding, self.tally = game, seed, encoding, tally
        self.chances = chances
        self.rng = random.Random(seed)
        seats = [SeatInfo(f"spy{n}", "bot") for n in range(game.info.min_seats)]
        self.runner = MatchRunner(match_id, game, seats, match_options(game, self.rng), seed,
                                  clock=Clock(decision_ms=DECISION_MS))
        self.runner.views_for = frozenset([*range(len(seats)), None])
        self.now = 0.0
        self.step = 0
        self.requests: dict[int, dict[str, Any]] = {}   # seat -> its latest request
        self.old_ids: dict[int, str] = {}                # seat -> a request id it answered
        self.sent: dict[int, Any] = {}                   # seat -> the action it last sent
        self._secrets: dict[Viewer, Secrets] = {}

    def play(self) -> bool:
        """Play the match to its end; ``False`` as soon as a leak is found."""
        runner, chances, rng = self.runner, self.chances, self.rng
        if not self.check(runner.start(self.now)):
            return False
        seats = list(range(runner.num_seats))
        while not runner.is_over:
            self.step += 1
            self.now += 0.01
            if rng.random() < chances.resync:
                self.tally.resyncs += 1
                if not self.check(runner.resync(rng.choice([*seats, None]), self.now)):
                    return False
            if rng.random() < chances.reconnect:
                seat = rng.choice(seats)
                if not (self.check(runner.disconnected(seat, self.now))
                        and self.check(runner.reconnected(seat, self.now))):
                    return False
            if rng.random() < chances.live_replay and not self.check(
                    [(None, render_for(runner, None, "replay", views=True))]):
                return False
            timeout = (chances.timeout_default if self.game.info.timeout == "default"
                       else chances.timeout_loss)
            if rng.random() < timeout:
                self.tally.timeouts += 1
                self.now += DECISION_MS / 1000 + 1
                if not self.check(runner.tick(self.now)):
                    return False
                continue
            if not self.answer(seats):
                return False
        self.tally.matches += 1
        if rng.random() < chances.finished_replay:
            # Everything of a finished match is public but its seed.
            texts, binary = number_spellings({self.seed: "the seed"})
            return self.check([(None, render_for(runner, None, "replay", views=True))],
                              {None: Secrets(texts=texts, binary=binary)})
        return True

    def answer(self, seats: list[int]) -> bool:
        """One seat with an open request answers: usually a random legal action."""
        runner, rng = self.runner, self.rng
        open_seats = [s for s in seats if runner.pending_request_id(s) is not None]
        if not open_seats:
            raise RuntimeError(f"{self.game.info.name} seed {self.seed}: a live match with "
                               "no open request")
        seat = rng.choice(open_seats)
        request_id = runner.pending_request_id(seat)
        action = random_answer(self.requests[seat], rng)
        if rng.random() < self.chances.wrong:
            seat, request_id, action = self.wrong_answer(seat, seats, request_id, action)
        self.sent[seat] = action
        out = runner.receive_action(seat, request_id, action, self.now)
        if request_id is not None and runner.pending_request_id(seat) != request_id:
            self.old_ids[seat] = request_id
        return self.check(out)

    def wrong_answer(self, seat: int, seats: list[int], request_id: str | None, action: Any
                     ) -> tuple[int, str | None, Any]:
        """A wrong answer of one of six kinds (see the module docstring)."""
        rng = self.rng
        kind = rng.randrange(6)
        if kind == 0 and seat in self.old_ids:
            return seat, self.old_ids[seat], action
        if kind == 1:
            return seat, request_id, {"spy": [seat, "not an action"]}
        if kind == 2:
            other = rng.choice([s for s in seats if s != seat])
            if other in self.requests:
                return seat, request_id, random_answer(self.requests[other], rng)
        if kind == 3 and seat in self.sent:
            return seat, request_id, self.sent[seat]
        idle = [s for s in seats if self.runner.pending_request_id(s) is None]
        if kind == 4 and idle:
            other = rng.choice(idle)
            return other, self.old_ids.get(other), self.sent.get(other, action)
        refused = REFUSED.get(self.game.info.name)
        if kind == 5 and refused is not None:
            return seat, request_id, refused(rng)
        return seat, request_id, action

    def check(self, out: Sequence[Outgoing], secrets: dict[Viewer, Secrets] | None = None
              ) -> bool:
        """Check each message against its viewer's secrets now (or those given); keep the
        latest requests."""
        self._secrets = {} if secrets is None else secrets
        for viewer, message in out:
            self.tally.messages += 1
            kind = message["type"]
            if kind == "request" and viewer is not None:
                self.requests[viewer] = message
            hidden = self._secrets.get(viewer)
            if hidden is None:
                hidden = self._secrets[viewer] = secrets_of(self.runner, viewer)
            unsearched: tuple[str, ...] = ()
            what: str | None = None
            if kind == "error":
                self.tally.errors += 1
                if viewer is not None and message["code"] == "illegal_action" \
                        and message.get("details", {}).get("rule") != "already_committed":
                    unsearched = ("message", "details")
                    what = error_depends_on_hidden(self.game, self.runner.state, viewer,
                                                   self.sent[viewer], message,
                                                   Rng(self.seed ^ self.step))
            what = what or find_leak(message, hidden, self.encoding, unsearched)
            if what is not None:
                self.tally.leaks.append(Leak(self.game.info.name, self.seed, self.encoding,
                                             self.step, viewer, what, message))
                return False
        return True


REFUSED: dict[str, Callable[[random.Random], Any]] = {
    # A claim of any flag: mostly refused, and an unprovable one names a counter-example
    # drawn from the unseen cards, the other hand's included (which must not matter).
    "battleline": lambda rng: {"type": "claim", "flag": rng.randint(1, 9)},
}
"""Per game, a well-formed action the rules often refuse, for the spy's wrong answers."""


def has_secrets(game: Game) -> bool:
    """Whether ``game`` hides more than its seed (hands, decks, plans pending)."""
    return game.info.hidden_information or game.info.simultaneous


def match_options(game: Game, rng: random.Random) -> dict[str, Any]:
    """A spied match's options, seeded: every Battle Line variant; Boundary's turn limit
    drawn from :data:`BOUNDARY_TURNS`; the defaults elsewhere."""
    if game.info.name == "battleline":
        return {key: rng.choice(values) for key, values in BATTLELINE_OPTIONS.items()}
    if game.info.name == "boundary":
        return {"turn_limit": rng.randint(*BOUNDARY_TURNS)}
    return {}


def match_seeds(first: int, count: int) -> list[int]:
    """``count`` 63-bit seeds, seeded: large enough that no number of a message equals one by
    chance (a seed of 7 would "appear" in every message)."""
    rng = random.Random(first)
    return [rng.getrandbits(62) | (1 << 62) for _ in range(count)]


def spy_game(game: Game, matches: int, first_seed: int = 1,
             chances: Chances | None = None,
             progress: Callable[[str], None] | None = None,
             encodings: Sequence[Encoding] = ("json", "msgpack")) -> Tally:
    """Play ``matches`` spied matches of ``game``, in ``encodings`` in turn; stops at the
    first leak."""
    tally = Tally()
    chances = chances or Chances()
    started = time.perf_counter()
    for n, seed in enumerate(match_seeds(first_seed, matches)):
        encoding = encodings[n % len(encodings)]
        if not SpyMatch(game, seed, encoding, tally, chances, f"spy-{n}").play():
            break
        if progress is not None and (n + 1) % 1000 == 0:
            progress(f"  {game.info.name}: {n + 1}/{matches} matches, "
                     f"{tally.messages:,} messages, {time.perf_counter() - started:.0f} s")
    tally.seconds = time.perf_counter() - started
    return tally


# ---- the command -----------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", action="append", default=None,
                   help="a game to spy on (repeatable; default every registered game)")
    p.add_argument("--matches", type=int, default=DEFAULT_MATCHES,
                   help=f"matches per game with hidden cards or plans (default "
                        f"{DEFAULT_MATCHES:,}); a game whose only secret is the seed plays "
                        f"{SEED_ONLY_SHARE} times fewer")
    p.add_argument("--seed", type=int, default=1, help="seed of the matches' seeds (default 1)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def run(args: argparse.Namespace) -> int:
    missed = self_test()
    if missed:
        print("arena bench spy: the spy's self-test failed; it would miss: "
              + "; ".join(missed))
        return 2
    names = args.game or registry.names()
    rows: list[dict[str, Any]] = []
    leak: Leak | None = None
    for name in names:
        game = registry.get(name)
        matches = args.matches if has_secrets(game) else max(1, args.matches // SEED_ONLY_SHARE)
        stderr_progress(f"spying on {matches:,} {name} matches")
        tally = spy_game(game, matches, args.seed, progress=stderr_progress)
        rows.append({"game": name, "matches": tally.matches, "messages": tally.messages,
                     "errors": tally.errors, "resyncs": tally.resyncs,
                     "timeouts": tally.timeouts, "leaks": len(tally.leaks),
                     "seconds": round(tally.seconds, 2),
                     "matches_per_s": round(tally.matches / max(tally.seconds, 1e-9), 1),
                     "messages_per_s": round(tally.messages / max(tally.seconds, 1e-9))})
        if tally.leaks:
            leak = tally.leaks[0]
            break
    if args.json:
        print(json.dumps({"benchmark": "spy", "results": rows,
                          "leak": None if leak is None else leak.report()}, indent=2))
    else:
        print(f"{'game':<12} {'matches':>8} {'matches/s':>10} {'messages':>11} "
              f"{'messages/s':>11} {'errors':>7} {'resyncs':>8} {'timeouts':>9} {'leaks':>6}")
        for row in rows:
            print(f"{row['game']:<12} {row['matches']:>8,} {row['matches_per_s']:>10,.1f} "
                  f"{row['messages']:>11,} {row['messages_per_s']:>11,} {row['errors']:>7,} "
                  f"{row['resyncs']:>8,} {row['timeouts']:>9,} {row['leaks']:>6}")
        if leak is not None:
            print(leak.report())
    return 1 if leak is not None else 0
