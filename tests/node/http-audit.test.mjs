// graphql-http's audit suite (serverAudits, from the reference implementation of the
// GraphQL over HTTP spec) against the real server: every MUST passes, and so does every
// SHOULD, save those kept with their reason in docs/clients.md ("GraphQL over HTTP").
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test http-audit.test.mjs

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverAudits } from 'graphql-http';

// Audit ids of the SHOULDs kept (docs/clients.md says why): none today.
const KEPT = new Set([]);

test('graphql-http serverAudits: no MUST fails, no SHOULD warns', async () => {
  const url = `${process.env.TABLESTATE_URL}/graphql`;
  const counts = { ok: 0, warn: 0, error: 0 };
  const problems = [];
  for (const audit of serverAudits({ url })) {
    const result = await audit.fn();
    counts[result.status] += 1;
    if (result.status !== 'ok' && !(result.status === 'warn' && KEPT.has(audit.id))) {
      problems.push(`${result.status} ${audit.id} ${audit.name}: ${result.reason}`);
    }
  }
  console.log(`graphql-http serverAudits: ${counts.ok} ok, ${counts.warn} warn, ${counts.error} error`);
  assert.ok(counts.ok > 50, `only ${counts.ok} audits ran`);
  assert.deepEqual(problems, []);
});
