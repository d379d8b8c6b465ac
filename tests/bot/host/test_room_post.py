"""`MatchService.post`: a room's one call for a posted message. The host finds the author's match in the room,
then walks the text under the match's lock; a grave text (a resignation, Dots' `stop`) comes back as the question
to ask, and nothing is played until the player confirms it (by submitting `Grave.text`)."""

from __future__ import annotations

from bot.host.events import Outcome
from bot.host.service import MatchService, PlayerRef
from bot.types import MatchStatus
from tests.bot.conftest import Recorder

ALICE, BOB, CAROL = PlayerRef("a", "alice"), PlayerRef("b", "bob"), PlayerRef("c", "carol")
ROOM, GUILD = 50, 7


async def test_a_room_message_finds_its_match_and_a_grave_one_is_asked_first(
    host: tuple[MatchService, Recorder],
) -> None:
    service, rec = host
    mid = await service.create_match(
        "dots", [ALICE, BOB], options={"width": 8, "height": 8}, guild_id=GUILD, channel_id=ROOM
    )
    assert await service.post(ROOM, GUILD, CAROL.id, "A1") is None, "carol plays no match here"
    assert await service.post(ROOM + 1, GUILD, ALICE.id, "A1") is None, "another room"
    assert await service.post(ROOM, GUILD + 1, ALICE.id, "A1") is None, "the same channel id in another guild"

    asked = await service.post(ROOM, GUILD, ALICE.id, " stop ", message_id="900")
    assert asked is not None and asked.result is None and asked.grave is not None
    assert (asked.match_id, asked.grave.action, asked.grave.text, asked.grave.seat) == (mid, "move", "stop", 1)
    resign = await service.post(ROOM, GUILD, BOB.id, "I resign!")
    assert resign is not None and resign.grave is not None and resign.grave.action == "resign"
    live = service.get(mid)
    assert live.ply == 0 and live.status == MatchStatus.ONGOING and "move" not in rec.kinds(), "nothing was played"
    stored = await service.record(mid)
    assert stored is not None and [e.kind for e in stored.events] == ["created"], "nor stored"

    out_of_turn = await service.post(ROOM, GUILD, BOB.id, "stop")
    assert out_of_turn is not None and out_of_turn.result is not None, "refused as usual: nothing to confirm"
    assert out_of_turn.result.status == Outcome.REJECTED and out_of_turn.result.kind == "turn"

    chat = await service.post(ROOM, GUILD, ALICE.id, "good luck!")
    assert chat is not None and chat.result is not None and chat.result.status == Outcome.IGNORED

    confirmed = await service.submit(mid, ALICE.id, asked.grave.text, message_id="900")
    assert confirmed.status == Outcome.ACCEPTED and live.ply == 1


async def test_a_player_with_two_matches_in_one_room_moves_where_it_is_their_turn(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    first = await service.create_match("boxes", [ALICE, BOB], guild_id=GUILD, channel_id=ROOM)
    second = await service.create_match("boxes", [CAROL, ALICE], guild_id=GUILD, channel_id=ROOM)
    posted = await service.post(ROOM, GUILD, ALICE.id, "A1-B1")
    assert posted is not None and posted.match_id == first and posted.result is not None
    assert posted.result.status == Outcome.ACCEPTED
    assert await service.post(ROOM, GUILD, CAROL.id, "A1-B1") is not None
    posted = await service.post(ROOM, GUILD, ALICE.id, "A2-B2")  # bob's turn in the first, alice's in the second
    assert posted is not None and posted.match_id == second and posted.result is not None
    assert posted.result.status == Outcome.ACCEPTED
    assert service.get(first).ply == 1 and service.get(second).ply == 2
