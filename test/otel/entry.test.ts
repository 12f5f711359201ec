import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { staticPackages } from '../support/import-graph.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

test('toolpact/otel loads only @opentelemetry/api; the SDK and exporters load when telemetry starts', () => {
  // The entry imports no package statically: @opentelemetry/api, an optional peer, is loaded at the top
  // level of otel/api.ts so that a missing one is named (src/util/optional-peer.ts).
  expect([...staticPackages(join(srcDir, 'otel', 'index.ts')).packages]).toEqual([]);
  const loaded = [...readFileSync(join(srcDir, 'otel', 'api.ts'), 'utf8').matchAll(/import\('([^']+)'\)/g)];
  expect(loaded.map((match) => match[1])).toEqual(['@opentelemetry/api']);
});

test('toolpact/policy never loads better-sqlite3 or OpenTelemetry until a SQLite audit log is opened', () => {
  const { packages } = staticPackages(join(srcDir, 'policy', 'index.ts'));
  expect(
    [...packages].filter((name) => name === 'better-sqlite3' || name.startsWith('@opentelemetry/')),
  ).toEqual([]);
});
