"""Battle Line — the rules of ``/work/shared/rules/battleline.md`` behind :class:`engine.core.Game`.

| | |
|---|---|
| name | ``battleline`` (``engine.battleline.GAME``) |
| seats | 2: seat 0 ``north`` (moves first), seat 1 ``south`` |
| chance | the deal and every draw from a deck (see *Chance*) |
| hidden | hands (kinds are public), decks, the other seat's Scout-returned cards |
| actions | claim, play, pass, draw, return, end_claims (see *Actions*) |
| views | the table for everybody; own hand and Scout knowledge per seat |
| outcome | ``five_flags``, ``breakthrough`` or ``stalemate``; scores = flags held |
| options | ``claim_timing``, ``mud_excess``, ``stalemate`` (see *Options*) |
| notation | one line, see :mod:`engine.battleline.notation` |

Chance: the deal is 14 chance nodes (alternately seat 0, seat 1, from the troop deck); every
draw from a deck is a chance node whose outcomes are the cards still in that deck, weight 1
each, in canonical order. A card a Scout returned on top of a deck is drawn without a chance
node. There is no hidden deck order.

Options: ``claim_timing`` ``"start"`` (default; claims before the play) or ``"after_play"``.
``mud_excess`` ``"keep"`` (default house rule: Mud removed while a side holds 4 cards; that
side keeps them, its best 3 count, nothing can be added there) or ``"forbid"`` (Mud cannot be
moved away or deserted while a side of its flag holds 4 cards). ``stalemate`` ``"resolve"``
(default house rule: after two turns in a row that ended in a pass, flags with exactly one
complete side go to it, then 5 flags or 3 adjacent win, else more flags, else a draw) or
``"draw"`` (those two passes end the game drawn).

Cards: troops ``"1r"`` … ``"10p"`` (value then colour: ``r o y g b p``); tactics ``Alexander``,
``Darius`` (Leaders), ``Cavalry`` (Companion Cavalry), ``Shield`` (Shield Bearers), ``Fog``,
``Mud``, ``Scout``, ``Redeploy``, ``Deserter``, ``Traitor``. Canonical order: troops by colour
then value, then the tactics in that order (:mod:`engine.battleline.cards`).

Actions (JSON; flags are ints 1–9; ``parse_action`` rejects any other field):

* ``{"type":"claim","flag":3}`` — in a claim window, flags listed in the view's ``claimable``.
* ``{"type":"play","card":"7r","flag":3}`` — troop, Leader, ``Cavalry``, ``Shield``: a free
  slot on your side of an unclaimed flag.
* ``{"type":"play","card":"Fog","flag":5}`` — ``Fog``/``Mud`` beside an unclaimed flag.
* ``{"type":"play","card":"Scout"}`` — then three draws, then two returns.
* ``{"type":"play","card":"Redeploy","from_flag":2,"target":"5b","to_flag":4}`` — one of your
  troop, morale or environment cards to another unclaimed flag; ``"to_flag":null`` discards it.
* ``{"type":"play","card":"Deserter","flag":4,"target":"9g"}`` — an opponent's card (troop or
  tactics) goes to its owner's discard pile.
* ``{"type":"play","card":"Traitor","from_flag":2,"target":"9g","to_flag":4}`` — an
  opponent's troop card to a free slot of yours (``to_flag`` may equal ``from_flag``).
* ``{"type":"pass"}`` — only holding no troop card with a free slot; no draw follows.
* ``{"type":"draw","deck":"troop"}`` — offered only when both decks have cards (otherwise the
  draw is automatic, or skipped when both are empty).
* ``{"type":"return","card":"7r"}`` — after a Scout's draws, twice (fewer with a smaller
  hand); the card goes face down on top of its own deck.
* ``{"type":"end_claims"}`` — ``claim_timing="after_play"`` only, when claims are open and no
  deck choice follows (after a pass, or with a deck empty).

A turn: claim window (``"start"``) → play or pass → claim window (``"after_play"``, after a
pass too) → draw (not after a pass).
Claims are offered together with the next decision of the turn, which closes the window.
Legal actions are sorted by ``action_key``: type (claim, play, pass, draw, return,
end_claims), then flag (``flag`` or ``from_flag``; Scout has none), card, target, ``to_flag``.
Chance outcomes are card names. ``action_text``: ``claim 3``, ``7r→3``, ``Fog→5``, ``Scout``,
``Redeploy 5b 2→4``, ``Redeploy 5b 2→discard``, ``Deserter 9g@4``, ``Traitor 9g 2→4``,
``draw troop``, ``return 7r``, ``pass``, ``end claims``.

Views (``view(state, seat)``): ``flags`` (both sides in play order, ``env`` card → seat who
played it, ``claimed``, ``complete`` = seats complete there in completion order),
``discards``, ``decks`` (counts), ``hands`` (per seat ``{"troop": n, "tactics": m}``),
``tactics_played``, ``leaders_played``, ``phase``, ``to_act``, ``turn_of``, ``claimable``,
``pending_draw``, ``scout_draws_left``, ``returns_left``, ``passes``, ``outcome``, ``options``.
A seat also gets ``hand``, ``known_tops`` (per deck, top first: the cards it returned by
Scout, ``null`` for a card the opponent returned) and ``opponent_known`` (cards it knows in
the opponent's hand because the opponent drew them from its Scout stack; forgotten when the
opponent returns cards with its own Scout). The spectator (``None``) gets neither.

Events (public part; private part in brackets for the seats named): ``deal`` {seat} [card],
``draw`` {seat, deck} [card, for the drawer and for the seat that returned it there],
``return`` {seat, deck} [card, for the returner], ``play`` {seat, …action}, ``claim``
{seat, flag[, by: "stalemate"]}, ``pass`` {seat}, ``game_over`` {ranks, reason, scores}.

Errors: ``MalformedAction`` for a wrong shape (type, unknown card or deck, flag not an int
1–9, extra or missing field). ``IllegalAction`` rules: ``wrong_phase``, ``not_in_hand``,
``slot_full``, ``flag_claimed``, ``tactics_limit``, ``second_leader``, ``environment_present``,
``pass_not_allowed``, ``side_incomplete``, ``claim_not_proven`` (details: ``formation``,
and ``counter_example`` {cards, category, total} or the complete ``opponent`` formation),
``no_such_card``, ``not_a_troop``, ``same_flag``, ``mud_excess``, ``deck_empty``,
``game_over``.

Engine decisions where the rules document is silent: a pass is not followed by a draw (the
draw refills the hand to seven); a card taken by Deserter goes to its owner's discard pile;
sides completed by one action (e.g. Mud moved away) are ordered with the acting seat first;
a side that loses a card and is still complete (a 4-card side) completes again at once.

Modules: ``cards`` (names, order, bit layout), ``formations`` (evaluation, completions,
proofs), ``rules`` (state layout and transitions), ``explain`` (illegal-action rules),
``game`` (the contract object), ``notation``.

Building blocks for bots: :mod:`engine.battleline.formations` (``evaluate``,
``best_completion``, ``completion_beating``, ``top_completions``, ``prove_claim``, ``can_claim``,
``claimable_flags``, ``unseen_troops``).
"""

from engine.battleline.game import GAME, BattleLine

__all__ = ["GAME", "BattleLine"]
