"""A third-party Python client, gql, over HTTP and WebSocket, as any frontend would use it."""

from __future__ import annotations

import asyncio

from gql import Client as GqlClient
from gql import gql
from gql.transport.httpx import HTTPXAsyncTransport
from gql.transport.websockets import WebsocketsTransport
from support.server import Client


async def test_gql_plays_and_follows_a_table(client: Client):
    http = GqlClient(transport=HTTPXAsyncTransport(url=client.url + "/graphql"))
    async with http as session:
        made = await session.execute(
            gql(
                'mutation { createTable(gameId: "lucky-draw", seats: 2) { hostToken table { id } } }'
            )
        )
        tid = made["createTable"]["table"]["id"]
        host = made["createTable"]["hostToken"]
        join = gql(
            "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { playerToken } }"
        )
        me = (await session.execute(join, variable_values={"t": tid, "n": "Ann"}))["joinTable"]
    authed = GqlClient(
        transport=HTTPXAsyncTransport(
            url=client.url + "/graphql", headers={"Authorization": f"Bearer {host}"}
        )
    )
    async with authed as session:
        await session.execute(
            gql("mutation($t: ID!) { addBot(tableId: $t) { id } }"), variable_values={"t": tid}
        )
        await session.execute(
            gql("mutation($t: ID!) { startGame(tableId: $t) { id } }"), variable_values={"t": tid}
        )

    ws = GqlClient(
        transport=WebsocketsTransport(
            url=client.url.replace("http", "ws") + "/graphql",
            init_payload={"authToken": me["playerToken"]},
            subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL],
        )
    )
    seen: list[str] = []
    async with ws as session:
        sub = gql("subscription($t: ID!) { tableEvents(tableId: $t) { type data } }")
        move = gql(
            "mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { version } } }"
        )
        table = gql("query($t: ID!) { table(id: $t) { status legalMoves } }")

        async def play() -> None:
            for _ in range(200):
                now = (await session.execute(table, variable_values={"t": tid}))["table"]
                if now["status"] == "FINISHED":
                    return
                if now["legalMoves"]:
                    await session.execute(
                        move, variable_values={"t": tid, "m": now["legalMoves"][0]}
                    )
                else:
                    await asyncio.sleep(0.01)

        async def follow() -> None:
            async for event in session.subscribe(sub, variable_values={"t": tid}):
                seen.append(event["tableEvents"]["type"])
                if event["tableEvents"]["type"] == "game.finished":
                    return

        await asyncio.wait_for(asyncio.gather(follow(), play()), 20)
    assert seen[0] == "table.created" and "cards.dealt" in seen
