import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { staticPackages } from '../support/import-graph.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

test('toolpact/otel loads only @opentelemetry/api; the SDK and exporters load when telemetry starts', () => {
  expect([...staticPackages(join(srcDir, 'otel', 'index.ts')).packages]).toEqual(['@opentelemetry/api']);
});

test('toolpact/policy never loads better-sqlite3 or OpenTelemetry until a SQLite audit log is opened', () => {
  const { packages } = staticPackages(join(srcDir, 'policy', 'index.ts'));
  expect(
    [...packages].filter((name) => name === 'better-sqlite3' || name.startsWith('@opentelemetry/')),
  ).toEqual([]);
});
