import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { fileTokenStore } from '../../src/mcp/index.js';
import { ROOT } from './support/wire.js';

// The token file written by several processes at once, as a gateway refreshing a token while
// `gateway login` stores another: each process's entries stay.

const KEY = 'ab'.repeat(32);
const PROCESSES = 4;
const WRITES = 25;

/** Writes WRITES entries, one after another, with the built `toolpact/mcp`. */
const WRITER = `
const [entry, file, key, id, writes] = process.argv.slice(1);
const { fileTokenStore } = await import(entry);
const store = fileTokenStore(file, { key });
for (let index = 0; index < Number(writes); index++) {
  await store.write(\`server-\${id}-\${index}\`, 'local', { client: { client_id: \`client-\${id}-\${index}\` } });
}
`;

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-token-processes-'));
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function writer(entry: string, file: string, id: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, entry, file, KEY, String(id), String(WRITES)],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

test('processes writing the token file at once keep every entry, and leave no lock or temporary file', async () => {
  const build = inject('toolpactBuild');
  const entry =
    build === undefined ? join(ROOT, 'dist', 'mcp', 'index.js') : join(build, 'src', 'mcp', 'index.js');
  const file = join(folder, 'mcp-tokens.json');
  const results = await Promise.all(Array.from({ length: PROCESSES }, (_, id) => writer(entry, file, id)));
  expect(results).toEqual(Array.from({ length: PROCESSES }, () => ({ code: 0, stderr: '' })));

  const store = fileTokenStore(file, { key: KEY });
  const missing: string[] = [];
  for (let id = 0; id < PROCESSES; id++) {
    for (let index = 0; index < WRITES; index++) {
      const record = await store.read(`server-${id}-${index}`, 'local');
      if (record?.client?.client_id !== `client-${id}-${index}`) missing.push(`server-${id}-${index}`);
    }
  }
  expect(missing).toEqual([]);
  expect(readdirSync(folder)).toEqual(['mcp-tokens.json']);
});
