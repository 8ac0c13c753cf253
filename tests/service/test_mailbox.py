"""``Mailbox``: asyncio.Queue's order, bound and hand-over, for the callers that use it;
``Flag``: asyncio.Event's, for the writes of a WebSocket."""

from __future__ import annotations

import asyncio

import pytest

from tablestate.mailbox import Flag, Mailbox


async def test_items_come_out_in_order_and_a_getter_waits_for_one() -> None:
    box: Mailbox[int] = Mailbox()
    assert box.empty() and box.qsize() == 0
    getter = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    assert not getter.done()
    for i in range(3):
        box.put_nowait(i)
    assert await getter == 0
    assert [box.get_nowait(), await box.get()] == [1, 2]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_a_bounded_mailbox_refuses_past_its_size() -> None:
    box: Mailbox[str] = Mailbox(2)
    box.put_nowait("a")
    box.put_nowait("b")
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait("c")
    assert box.get_nowait() == "a"
    box.put_nowait("c")
    assert [box.get_nowait(), box.get_nowait()] == ["b", "c"]


async def test_getters_are_served_first_come_first_served() -> None:
    box: Mailbox[int] = Mailbox()
    first = asyncio.ensure_future(box.get())
    second = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait(1)
    box.put_nowait(2)
    assert await asyncio.gather(first, second) == [1, 2]


async def test_a_getter_cancelled_after_its_wake_up_hands_the_item_on() -> None:
    box: Mailbox[int] = Mailbox()
    first = asyncio.ensure_future(box.get())
    second = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait(7)  # wakes the first getter...
    first.cancel()  # ...which is cancelled before it takes the item
    assert await asyncio.wait_for(second, 1) == 7
    assert first.cancelled()


async def test_a_cancelled_getter_leaves_nothing_waiting() -> None:
    box: Mailbox[int] = Mailbox()
    getter = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    getter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await getter
    box.put_nowait(1)
    assert box.get_nowait() == 1


async def test_a_flag_wakes_every_waiter_once_set_and_a_set_flag_lets_through() -> None:
    flag = Flag()
    assert not flag.is_set()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    flag.set()
    flag.clear()  # cleared before they run: they were woken all the same, as by an Event
    assert await asyncio.gather(*waiters) == [True, True, True]
    flag.set()
    flag.set()
    assert flag.is_set() and await asyncio.wait_for(flag.wait(), 1)


async def test_a_cancelled_flag_waiter_leaves_nothing_waiting() -> None:
    flag = Flag()
    waiter = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert flag._waiters is None
    flag.set()
    assert flag.is_set()


async def test_the_only_getter_cancelled_after_its_wake_up_is_cancelled_cleanly() -> None:
    box: Mailbox[int] = Mailbox()
    getter = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait(1)  # wakes it, and no waiter is left on the list
    getter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await getter
    assert box.get_nowait() == 1 and box.empty()
