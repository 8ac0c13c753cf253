// A small typed client of Tablestate: its operations' types are generated from
// schema/schema.graphql and the documents beside it, so a renamed field or a wrong move
// fails to compile. Checked with `tsc --noEmit` (typed.test.mjs), not run.

import type {
  AllFivesTableQuery,
  CreateTableMutation,
  CreateTableMutationVariables,
  FiveByFiveTableQuery,
  FiveCrownsTableQuery,
  FollowTableSubscription,
  MakeMoveMutation,
  MakeMoveMutationVariables,
  TablePageQuery,
} from './__generated__/operations';
import type { MoveInput } from './__generated__/schema';

type Result<T> = { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };

export async function request<T, V>(url: string, query: string, variables: V, token?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as Result<T>;
  if (body.errors?.length || !body.data) throw new Error(body.errors?.[0]?.extensions?.code ?? 'no data');
  return body.data;
}

export function hostToken(made: CreateTableMutation): string {
  return made.createTable.hostToken;
}

export const newTable: CreateTableMutationVariables = { game: 'five-crowns', options: { rounds: 1 }, seats: 2 };

// Moves are the games' own input types: a typo in a move kind does not compile.
export const draw: MoveInput = { fiveCrowns: { draw: { source: 'STOCK' } } };
export const play: MoveInput = { allFives: { play: { card: '5H' } } };
export const forfeit: MakeMoveMutationVariables = { t: 'table', m: { fiveByFive: { forfeitActions: { cards: [] } } } };

export function versionAfter(moved: MakeMoveMutation): number {
  return moved.makeMove.table.version;
}

export function handSizes(table: FiveCrownsTableQuery['table']): number[] {
  const state = table?.state;
  if (state?.__typename !== 'FiveCrownsState') return [];
  return state.players.map((p) => p.handSize);
}

export function trickCards(table: AllFivesTableQuery['table']): string[] {
  const state = table?.state;
  return state?.__typename === 'AllFivesState' ? state.trick.map((p) => p.card) : [];
}

export function boardSquares(table: FiveByFiveTableQuery['table']): (string | null)[] {
  const state = table?.state;
  return state?.__typename === 'FiveByFiveState' ? state.board.flat() : [];
}

export function lastCursor(events: FollowTableSubscription[]): string | null {
  return events.at(-1)?.tableEvents.cursor ?? null;
}

export function nextPage(page: TablePageQuery): string | null {
  return page.tables.pageInfo.hasNextPage ? (page.tables.pageInfo.endCursor ?? null) : null;
}
