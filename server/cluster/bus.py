"""The nodes' message bus: one Redis pub/sub channel per node, one for all of them.

Each node listens on its own channel (``{prefix}node:{id}``) and on the broadcast channel
(``{prefix}all``). What a node sends within one turn of its event loop goes out as one
PUBLISH per destination at the end of that turn (a msgpack list of operations), through one
writer task: the operations for a node arrive in the order they were sent, which is what
keeps a seat's messages in order across nodes. Redis pub/sub drops what is published to a
node that is gone: whatever must survive a node's death lives in PostgreSQL and the job
streams (:mod:`server.cluster.node`), never only on the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import msgpack
import structlog
from redis import asyncio as aioredis

log = structlog.get_logger("arena.cluster")

Op = dict[str, Any]


class Bus:
    def __init__(self, redis: aioredis.Redis, node_id: str, prefix: str,
                 on_ops: Callable[[list[Op]], None]) -> None:
        self.redis = redis
        self.node_id = node_id
        self.prefix = prefix
        self._on_ops = on_ops
        self._pending: dict[str, list[Op]] = {}
        self._flush_scheduled = False
        self._outbox: asyncio.Queue[list[tuple[str, bytes]]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None
        self.sent = 0
        self.received = 0
        self.closing = False

    def channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    @property
    def everyone(self) -> str:
        return f"{self.prefix}all"

    async def start(self) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel(self.node_id), self.everyone)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read(), name="bus-reader"),
                       loop.create_task(self._write(), name="bus-writer")]

    async def close(self) -> None:
        self.closing = True
        self._flush()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2):
                await self._outbox.join()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(3):
                    await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()

    # ---- sending ------------------------------------------------------------------------------

    def send(self, node: str, op: Op) -> None:
        """Queue ``op`` for ``node`` (this turn's operations leave together, in order)."""
        self._pending.setdefault(self.channel(node), []).append(op)
        self._schedule()

    def broadcast(self, op: Op) -> None:
        """Queue ``op`` for every node, this one included."""
        self._pending.setdefault(self.everyone, []).append(op)
        self._schedule()

    def _schedule(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._pending:
            return
        batch = [(channel, msgpack.packb(ops, use_bin_type=True))
                 for channel, ops in self._pending.items()]
        self._pending = {}
        self._outbox.put_nowait(batch)

    async def _write(self) -> None:
        while not self.closing:
            batch = await self._outbox.get()
            try:
                if len(batch) == 1:
                    await self.redis.publish(*batch[0])
                else:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for channel, data in batch:
                            pipe.publish(channel, data)
                        await pipe.execute()
                self.sent += len(batch)
            except Exception:
                log.exception("bus_publish_failed", channels=len(batch))
            finally:
                self._outbox.task_done()

    # ---- receiving ----------------------------------------------------------------------------

    async def _read(self) -> None:
        pubsub = self._pubsub
        while not self.closing:
            try:
                message = await pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bus_read_failed")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            self.received += 1
            try:
                ops = msgpack.unpackb(message["data"], raw=False)
                self._on_ops(ops)
            except Exception:
                log.exception("bus_message_failed")
