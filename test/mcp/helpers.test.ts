import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { planNames, serverSlug } from '../../src/mcp/imported-names.js';
import {
  checkRequestOrigin,
  effectsFromAnnotations,
  inferCategory,
  serveHttp,
  serveStdio,
  upgradeSchema,
} from '../../src/mcp/index.js';
import { remoteResultValue } from '../../src/mcp/remote-result.js';
import { splitCommandLine } from '../../src/mcp/split-command-line.js';

describe('planNames', () => {
  test('free names are kept, taken ones get the server prefix', () => {
    expect(planNames('My Files!', ['read_file', 'grep'], new Set(['read_file']), 'on-collision')).toEqual([
      { remote: 'read_file', local: 'my_files_read_file', reason: 'collision' },
      { remote: 'grep', local: 'grep' },
    ]);
  });

  test('"always" prefixes everything; "never" leaves a taken name unassigned', () => {
    expect(planNames('fs', ['a'], new Set(), 'always')).toEqual([
      { remote: 'a', local: 'fs_a', reason: 'always' },
    ]);
    expect(planNames('fs', ['a'], new Set(['a']), 'never')).toEqual([{ remote: 'a', local: undefined }]);
  });

  test('a prefixed name is cut to 64 characters with a hash, deterministically and distinctly', () => {
    const long = `${'x'.repeat(70)}_one`;
    const other = `${'x'.repeat(70)}_two`;
    const [first, second] = planNames('server', [long, other], new Set([long, other]), 'on-collision');
    expect(first!.local).toHaveLength(64);
    expect(first!.local).toMatch(/^server_x+_[0-9a-f]{8}$/);
    expect(first!.local).not.toBe(second!.local);
    expect(planNames('server', [long], new Set([long]), 'on-collision')[0]!.local).toBe(first!.local);
  });

  test('wide MCP names that are free are kept as they are (adapters alias them)', () => {
    const dotted = `admin.tools.${'y'.repeat(100)}`;
    expect(planNames('s', [dotted], new Set(), 'on-collision')).toEqual([{ remote: dotted, local: dotted }]);
  });

  test('a name outside the MCP profile has its bad characters replaced', () => {
    expect(planNames('s', ['read file/now'], new Set(), 'on-collision')).toEqual([
      { remote: 'read file/now', local: 'read_file_now', reason: 'invalid_name' },
    ]);
  });

  test('a name whose provider alias is taken counts as taken: "a.b" beside "a_b", also within one server', () => {
    expect(planNames('fs', ['a.b'], new Set(['a_b']), 'on-collision')).toEqual([
      { remote: 'a.b', local: 'fs_a.b', reason: 'collision' },
    ]);
    expect(planNames('fs', ['x.y', 'x_y'], new Set(), 'on-collision')).toEqual([
      { remote: 'x.y', local: 'x.y' },
      { remote: 'x_y', local: 'fs_x_y', reason: 'collision' },
    ]);
  });

  test('a second collision (the prefixed name is taken too) is settled by a hash', () => {
    const [plan] = planNames('fs', ['a'], new Set(['a', 'fs_a']), 'on-collision');
    expect(plan!.local).toMatch(/^fs_a_[0-9a-f]{8}$/);
  });

  test('serverSlug is lowercase [a-z0-9_], at most 24 characters, never empty', () => {
    expect(serverSlug('@modelcontextprotocol/server-filesystem')).toBe('modelcontextprotocol_ser');
    expect(serverSlug('!!!')).toBe('mcp');
  });
});

describe('upgradeSchema', () => {
  test('draft-07 tuple items, additionalItems and dependencies become their 2020-12 keywords', () => {
    expect(
      upgradeSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        },
        dependencies: { a: ['b'], c: { required: ['d'] } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
      },
      dependentRequired: { a: ['b'] },
      dependentSchemas: { c: { required: ['d'] } },
    });
  });

  test('a 2020-12 (or undeclared) schema is kept, minus $schema; enum values are never rewritten', () => {
    const schema = { type: 'object', properties: { items: { enum: [['x']] } } };
    expect(upgradeSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema })).toEqual(
      schema,
    );
  });
});

describe('splitCommandLine', () => {
  test.each([
    ['node server.js', ['node', 'server.js']],
    [`node "my server.js" --root 'a b'`, ['node', 'my server.js', '--root', 'a b']],
    ['a\\ b "x\\"y" \'\'', ['a b', 'x"y', '']],
    ['  spaced   out  ', ['spaced', 'out']],
  ])('%s', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  test('an unclosed quote throws', () => {
    expect(() => splitCommandLine('node "server.js')).toThrow(/unclosed " quote/);
  });
});

describe('checkRequestOrigin', () => {
  const loopback = { loopback: true };
  test.each([
    [{ host: '127.0.0.1:3000' }, undefined],
    [{ host: 'localhost:3000', origin: 'http://localhost:5173' }, undefined],
    [{ host: '[::1]:3000', origin: 'http://[::1]:3000' }, undefined],
    [{ host: 'evil.example.com:3000' }, 421],
    [{ host: 'localhost:3000', origin: 'http://evil.example.com' }, 403],
    [{ host: 'localhost:3000', origin: 'null' }, 403],
    [{ host: 'localhost.evil.com' }, 421],
  ])('%j on a loopback server → %s', (headers, status) => {
    expect(checkRequestOrigin(headers, loopback)?.status).toBe(status);
  });

  test('allowed origins and hosts pass; a non-loopback server does not pin Host', () => {
    expect(
      checkRequestOrigin(
        { host: 'localhost', origin: 'https://app.example.com' },
        { loopback: true, allowedOrigins: ['https://app.example.com'] },
      ),
    ).toBeUndefined();
    expect(
      checkRequestOrigin({ host: 'proxy.local' }, { loopback: true, allowedHosts: ['proxy.local'] }),
    ).toBeUndefined();
    expect(checkRequestOrigin({ host: 'tools.internal' }, { loopback: false })).toBeUndefined();
    expect(
      checkRequestOrigin({ host: 'tools.internal', origin: 'http://evil.example.com' }, { loopback: false })
        ?.status,
    ).toBe(403);
  });
});

describe('inferCategory and effectsFromAnnotations', () => {
  test('read-only tools are read or search; everything else is write', () => {
    expect(inferCategory('search_files', { readOnlyHint: true })).toBe('search');
    expect(inferCategory('get_file_info', { readOnlyHint: true })).toBe('read');
    expect(inferCategory('get_file_info', undefined)).toBe('write');
  });

  test("missing annotations take the spec's defaults: destructive and open-world", () => {
    expect(effectsFromAnnotations(undefined)).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(effectsFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toMatchObject({
      readOnly: true,
      destructive: false,
    });
    // A read-only tool changes nothing, so repeating it changes nothing more: idempotent.
    expect(effectsFromAnnotations({ readOnlyHint: true, idempotentHint: false })).toMatchObject({
      idempotent: true,
    });
  });
});

describe('remoteResultValue', () => {
  test('structuredContent wins; a lone text is the value; a toolpact envelope is unwrapped', () => {
    expect(
      remoteResultValue({ content: [{ type: 'text', text: '{}' }], structuredContent: { a: 1 } }, 's'),
    ).toEqual({
      a: 1,
    });
    expect(remoteResultValue({ content: [{ type: 'text', text: 'hello' }] }, 's')).toBe('hello');
    expect(
      remoteResultValue({ content: [{ type: 'text', text: '{"ok":true,"result":[1,2]}' }] }, 's'),
    ).toEqual([1, 2]);
    expect(
      remoteResultValue(
        {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        's',
      ),
    ).toEqual(['a', 'b']);
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    expect(remoteResultValue({ content: [image] }, 's')).toEqual([image]);
  });

  test('isError throws a ToolError: the remote envelope type when there is one, else mcp_tool_error', () => {
    expect(() =>
      remoteResultValue(
        {
          isError: true,
          content: [{ type: 'text', text: '{"ok":false,"error":{"type":"not_found","message":"No."}}' }],
        },
        's',
      ),
    ).toThrow(expect.objectContaining({ type: 'not_found', message: 'No.' }));
    expect(() =>
      remoteResultValue({ isError: true, content: [{ type: 'text', text: 'bad path' }] }, 's'),
    ).toThrow(expect.objectContaining({ type: 'mcp_tool_error', message: 'bad path' }));
    expect(() => remoteResultValue({ isError: true, content: [] }, 'fs')).toThrow(
      /"fs" reported an error without a message/,
    );
  });
});

describe('serving entries check their options when they start', () => {
  test('a bad pageSize is refused by serveStdio and serveHttp before anything is served', async () => {
    const registry = new Registry();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    await expect(serveStdio(registry, { pageSize: 0, stdin, stdout })).rejects.toThrow(/pageSize is 0/);
    await expect(serveHttp(registry, { pageSize: 1.5, port: 0 })).rejects.toThrow(/pageSize is 1\.5/);
  });
});
