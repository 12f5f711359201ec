import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import * as agent from '../../src/agent/index.js';
import { command } from '../../src/cli/commands/run.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = readFileSync(join(root, 'docs', 'agent.md'), 'utf8');

describe('docs/agent.md and the package describe what the code has', () => {
  test('every stop reason is in the table', () => {
    for (const reason of agent.AGENT_STOP_REASONS) expect(page).toContain(`| \`${reason}\` |`);
  });

  test('every export of toolpact/agent is named', () => {
    for (const name of Object.keys(agent)) expect(page, name).toContain(name);
  });

  test('every option of toolpact run is documented', () => {
    const flags = [...new Set(command.usage.match(/--[a-z-]+/g))];
    expect(flags.length).toBeGreaterThan(8);
    for (const flag of flags) expect(page, flag).toContain(flag);
  });

  test('toolpact/agent is a package subpath, and the provider SDKs are optional peers', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.exports['./agent']).toEqual({
      types: './dist/agent/index.d.ts',
      import: './dist/agent/index.js',
      require: './cjs/agent.cjs',
    });
    for (const sdk of ['openai', '@anthropic-ai/sdk', '@google/genai']) {
      expect(pkg.peerDependenciesMeta[sdk], sdk).toEqual({ optional: true });
      expect(pkg.devDependencies[sdk], sdk).toBeDefined();
    }
  });

  test('no file of src/agent imports a package at run time (the adapters take the client, typed structurally)', () => {
    const folder = join(root, 'src', 'agent');
    for (const file of readdirSync(folder)) {
      const source = readFileSync(join(folder, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      const imports = [
        ...source.matchAll(/^\s*(import|export)(\s+type)?\s[^'";]*?from\s+['"]([^'"]+)['"]/gm),
      ];
      for (const [, , typeOnly, specifier] of imports) {
        if (!specifier!.startsWith('.')) expect(typeOnly, `${file} imports ${specifier}`).toBeDefined();
      }
    }
  });
});
