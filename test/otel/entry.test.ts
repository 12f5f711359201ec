import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Every package a module graph imports statically (type-only and dynamic imports do not load). */
function staticPackages(entry: string): Set<string> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
      if (/^\s*(?:import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1]!;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        const typescript = target.replace(/\.js$/, '.ts');
        visit(existsSync(typescript) ? typescript : target);
      } else if (!specifier.startsWith('node:')) {
        packages.add(
          specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
        );
      }
    }
  };
  visit(entry);
  return packages;
}

test('toolpact/otel loads only @opentelemetry/api; the SDK and exporters load when telemetry starts', () => {
  expect([...staticPackages(join(srcDir, 'otel', 'index.ts'))]).toEqual(['@opentelemetry/api']);
});

test('toolpact/policy never loads better-sqlite3 or OpenTelemetry until a SQLite audit log is opened', () => {
  const packages = [...staticPackages(join(srcDir, 'policy', 'index.ts'))];
  expect(packages.filter((name) => name === 'better-sqlite3' || name.startsWith('@opentelemetry/'))).toEqual(
    [],
  );
});
