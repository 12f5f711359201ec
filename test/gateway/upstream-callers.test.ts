// Whom an upstream's request or notification is for, as a table: the call it was sent under when that
// is known, else the running calls' client when they all come from one client, else nobody.
import { describe, expect, test } from 'vitest';
import { callerRoute, type UpstreamCaller, UpstreamCallers } from '../../src/gateway/upstream-callers.js';
import type { McpRequestContext } from '../../src/mcp/request-context.js';

const alice = {};
const bob = {};
const call = (connection: object | undefined, remoteName = 'tool'): UpstreamCaller => ({
  context: connection ? ({ connection } as unknown as McpRequestContext) : undefined,
  remoteName,
});

describe('callerRoute', () => {
  const a1 = call(alice, 'a1');
  const a2 = call(alice, 'a2');
  const b1 = call(bob, 'b1');
  const library = call(undefined, 'direct');
  test.each([
    ['no call running', undefined, [], { kind: 'none' }],
    ['one call', undefined, [a1], { kind: 'call', caller: a1 }],
    ['two calls of one client: the newest', undefined, [a1, a2], { kind: 'call', caller: a2 }],
    ['calls of two clients', undefined, [a1, b1], { kind: 'ambiguous' }],
    ['calls of two clients, the call known', b1, [a1, b1], { kind: 'call', caller: b1 }],
    ['a known call that has ended counts for nothing', b1, [a1, a2], { kind: 'call', caller: a2 }],
    ['a known call that has ended, none running', a1, [], { kind: 'none' }],
    ['two calls that came over no MCP client', undefined, [library, call(undefined)], { kind: 'ambiguous' }],
    ['a client call beside a direct one', undefined, [a1, library], { kind: 'ambiguous' }],
  ] as const)('%s', (_name, known, running, expected) => {
    expect(callerRoute(known, running)).toEqual(expected);
  });
});

describe('UpstreamCallers', () => {
  test('a call is running while its request is, and known to what runs within it', async () => {
    const callers = new UpstreamCallers();
    const a1 = call(alice);
    const b1 = call(bob);
    let inside: unknown;
    let release: () => void = () => {};
    const held = callers.run(b1, () => new Promise<void>((resolve) => (release = resolve)));
    await callers.run(a1, async () => {
      inside = callers.route();
    });
    expect(inside).toEqual({ kind: 'call', caller: a1 });
    expect(callers.route()).toEqual({ kind: 'call', caller: b1 });
    release();
    await held;
    expect(callers.route()).toEqual({ kind: 'none' });
  });
});
