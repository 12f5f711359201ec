import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { entryFiles } from './layers.js';

const root = resolve(import.meta.dirname, '../..');
const loader = join(import.meta.dirname, 'entry-load', 'load-entry.mjs');

/**
 * Packages an entry must not load, except the entries that exist for them: `toolpact/extract` reads
 * TypeScript, `toolpact/otel` is OpenTelemetry, and `ai` (which `toolpact/ai-sdk` bridges) imports
 * `@opentelemetry/api` itself.
 */
const HEAVY: readonly {
  readonly name: string;
  readonly pattern: RegExp;
  readonly allowedIn?: readonly string[];
}[] = [
  { name: 'typescript', pattern: /\/node_modules\/typescript\//, allowedIn: ['src/extract/index.ts'] },
  {
    name: 'MCP SDK',
    pattern: /\/node_modules\/@modelcontextprotocol\/(server|client|node)\//,
    allowedIn: ['src/mcp/index.ts', 'src/gateway/index.ts'],
  },
  { name: 'gpt-tokenizer', pattern: /\/node_modules\/gpt-tokenizer\// },
  { name: 'pg', pattern: /\/node_modules\/(pg|pg-pool|pg-protocol)\// },
  {
    name: 'OpenTelemetry',
    pattern: /\/node_modules\/@opentelemetry\//,
    allowedIn: ['src/otel/index.ts', 'src/ai-sdk/index.ts'],
  },
];

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'toolpact-entry-load-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/**
 * The URLs one entry loads, each in a fresh process: the entry's file in the run's build of `src/`
 * (the same modules, each compiled as tsx would, so the same imports) under plain `node`, which spares
 * each process tsx and compiling the tree again; without a build, the source under `node --import tsx`.
 */
async function loadedBy(entry: string, log: string): Promise<string[]> {
  const build = inject('toolpactBuild');
  const args =
    build === undefined
      ? ['--import', 'tsx', loader, entry, log]
      : [loader, join(build, relative(root, entry).replace(/\.ts$/, '.js')), log];
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  if (code !== 0) throw new Error(`importing ${entry} failed (exit ${code}):\n${stderr}`);
  return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
}

test('each entry, imported in a fresh process, loads no TypeScript, tokenizer, pg or OpenTelemetry, and the MCP SDK only in mcp and gateway', async () => {
  const entries = entryFiles(root);
  expect(entries).toHaveLength(16);
  const found: string[] = [];
  const counts: Record<string, number> = {};
  // Two at a time: each process loads its own module graph.
  const queue = [...entries];
  const work = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const name = relative(root, entry);
      const urls = await loadedBy(entry, join(folder, `${name.replaceAll('/', '-')}.log`));
      counts[name] = urls.length;
      for (const heavy of HEAVY) {
        if (heavy.allowedIn?.includes(name)) continue;
        const hit = urls.find((url) => heavy.pattern.test(url));
        if (hit) found.push(`${name} loads ${heavy.name} (${hit.slice(hit.indexOf('/node_modules/'))})`);
      }
    }
  };
  await Promise.all([work(), work()]);
  // Each entry loaded its own files at least: an empty log would pass every check.
  for (const entry of entries) expect(counts[relative(root, entry)]).toBeGreaterThan(1);
  expect(found.sort(), found.join('\n')).toEqual([]);
}, 120_000);
