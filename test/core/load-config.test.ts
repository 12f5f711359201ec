import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

let dir: string | undefined;
async function folder(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'toolpact-config-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('loadConfig', () => {
  test.each([
    ['toolpact.config.ts', 'export default { lint: { preset: "strict" } };\n'],
    ['toolpact.config.mts', 'export default { lint: { preset: "strict" } };\n'],
    ['toolpact.config.mjs', 'export default { lint: { preset: "strict" } };\n'],
    ['toolpact.config.json', '{ "lint": { "preset": "strict" } }'],
  ])('reads %s', async (name, text) => {
    const loaded = await loadConfig(await folder({ [name]: text }));
    expect(loaded).toEqual({ config: { lint: { preset: 'strict' } }, source: name });
  });

  test('the first file found wins; package.json#toolpact comes last; nothing is an empty config', async () => {
    const both = await folder({
      'toolpact.config.json': '{ "lint": {} }',
      'package.json': '{ "name": "x", "toolpact": { "policy": {} } }',
    });
    expect((await loadConfig(both)).source).toBe('toolpact.config.json');
    await rm(join(both, 'toolpact.config.json'));
    expect(await loadConfig(both)).toEqual({ config: { policy: {} }, source: 'package.json#toolpact' });
    await writeFile(join(both, 'package.json'), '{ "name": "x" }');
    expect(await loadConfig(both)).toEqual({ config: {}, source: undefined });
  });

  test.each([
    ['toolpact.config.json', '{ "lint": ', 'toolpact.config.json is not valid JSON'],
    ['toolpact.config.json', '[1]', 'must be an object'],
    ['toolpact.config.mjs', 'export default 3;\n', 'must be an object'],
    ['toolpact.config.mjs', 'throw new Error("boom");\n', 'Cannot load toolpact.config.mjs: boom'],
  ])('refuses a broken %s with a message naming it', async (name, text, fragment) => {
    const error = await loadConfig(await folder({ [name]: text })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(fragment);
  });
});
