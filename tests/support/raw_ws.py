"""A WebSocket client on a bare TCP stream, for what no well-behaved client library sends:
frames announcing more than the server takes, payloads streamed from one small buffer, a
socket left unread while the server writes to it."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
from dataclasses import dataclass

TEXT, CLOSE, PING = 0x1, 0x8, 0x9
CONTINUATION = 0x0


def header(opcode: int, length: int, fin: bool = True) -> bytes:
    """A client frame's header for a payload of ``length`` bytes, masked with a zero key
    (a valid mask that leaves the payload as it is, so that it can be streamed)."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        head = struct.pack("!BB", first, 0x80 | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, length)
    return head + b"\0\0\0\0"


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    return header(opcode, len(payload), fin) + payload


@dataclass
class RawSocket:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        protocol: str = "graphql-transport-ws",
        receive_buffer: int | None = None,
        source: str | None = None,
    ) -> RawSocket:
        """A WebSocket handshake on a new connection (``receive_buffer``: the kernel's
        receive buffer, fixed small, for a client that stops reading; ``source``: the local
        address to connect from, say another loopback address for another client)."""
        sock = socket.socket()
        sock.setblocking(False)
        if receive_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        if source is not None:
            sock.bind((source, 0))
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
        limit = receive_buffer or 2**16
        reader, writer = await asyncio.open_connection(sock=sock, limit=limit)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /graphql HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.split(b"\r\n", 1)[0].endswith(b"101 Switching Protocols"), head
        return cls(reader, writer)

    async def send_text(self, text: str) -> None:
        self.writer.write(frame(TEXT, text.encode()))
        await self.writer.drain()

    async def read_frame(self, timeout: float = 10) -> tuple[int, bytes]:
        """The next frame from the server (unmasked): its opcode and payload."""
        first, second = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return first & 0x0F, await asyncio.wait_for(self.reader.readexactly(length), timeout)

    async def close_code(self, timeout: float = 10) -> int | None:
        """Read until the server's close frame: its code (None: the stream ended first)."""
        try:
            while True:
                opcode, payload = await self.read_frame(timeout)
                if opcode == CLOSE:
                    return int(struct.unpack("!H", payload[:2])[0]) if payload else 1005
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    def abort(self) -> None:
        self.writer.transport.abort()
