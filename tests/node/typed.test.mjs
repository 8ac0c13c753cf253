// GraphQL Code Generator (typescript, typescript-operations) makes the types of the
// documents of the bundled games (typed/documents) from schema/schema.graphql, and
// `tsc --noEmit` compiles the typed client (typed/client.ts) against them. Needs no server.
//
//   node --test typed.test.mjs

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, 'node_modules', '.bin');
const run = (tool, args) => execFileSync(join(BIN, tool), args, { cwd: HERE, encoding: 'utf8', stdio: 'pipe' });

test('generated types of the bundled games compile with the typed client', () => {
  rmSync(join(HERE, 'typed', '__generated__'), { recursive: true, force: true });
  run('graphql-codegen-esm', ['--config', 'typed/codegen.yml']);
  for (const file of ['schema.ts', 'operations.ts']) {
    assert.ok(existsSync(join(HERE, 'typed', '__generated__', file)), file);
  }
  try {
    run('tsc', ['-p', 'typed/tsconfig.json']);
  } catch (err) {
    assert.fail(`tsc --noEmit failed:\n${err.stdout}${err.stderr}`);
  }
});
