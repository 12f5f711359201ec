import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  type AnyTool,
  type CallRecord,
  defineTool,
  type Envelope,
  FRAMEWORK_ERROR_TYPES,
  isErrorType,
  Registry,
  type RegistryOptions,
  ToolError,
} from '../../src/index.js';

const echo = defineTool({
  name: 'echo',
  description: 'Return the arguments unchanged.',
  category: 'read',
  input: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1 },
      count: { type: 'integer', minimum: 1, default: 1 },
      mode: { enum: ['plain', 'loud'] },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      nested: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    },
    required: ['text'],
    additionalProperties: false,
  } as const,
  execute: (args) => args,
});

function fails(run: () => unknown, name = 'fails') {
  return defineTool({ name, description: 'Fail on purpose.', category: 'read', execute: run });
}

function registryWith(options: RegistryOptions = {}, ...tools: AnyTool[]) {
  return new Registry(options).register(echo, ...tools);
}

/** Every envelope, whatever happened, is an object with `ok` and either `result` or a typed error. */
function expectWellFormed(text: string): Envelope {
  const envelope = JSON.parse(text) as Envelope;
  expect(typeof envelope.ok).toBe('boolean');
  if (envelope.ok) expect(Object.hasOwn(envelope, 'result')).toBe(true);
  else {
    expect(typeof envelope.error.type).toBe('string');
    expect(typeof envelope.error.message).toBe('string');
    expect(envelope.error.message.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/\n\s+at\s|node:internal|\/home\/|\/root\//);
  }
  return envelope;
}

describe('success', () => {
  test('a sync and an async tool', async () => {
    const later = defineTool({
      name: 'later',
      description: 'Resolve after a tick.',
      category: 'read',
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return n + 1;
      },
    });
    const registry = registryWith({}, later);
    expect(await registry.dispatch('echo', '{"text":"hi"}')).toBe(
      '{"ok":true,"result":{"text":"hi","count":1}}',
    );
    expect(await registry.call('later', { n: 1 })).toEqual({ ok: true, result: 2 });
  });

  test('arguments may be an object, a JSON string, empty, null or missing', async () => {
    const none = defineTool({
      name: 'none',
      description: 'No parameters.',
      category: 'read',
      execute: () => 'ok',
    });
    const registry = registryWith({}, none);
    for (const args of [undefined, null, '', '  ', 'null', '{}', {}]) {
      expect(await registry.call('none', args)).toEqual({ ok: true, result: 'ok' });
    }
  });

  test('an object passed by the caller is not changed by defaults or by the tool', async () => {
    const mutate = defineTool({
      name: 'mutate',
      description: 'Change its argument.',
      category: 'read',
      input: { type: 'object', properties: { list: { type: 'array' }, n: { type: 'integer', default: 3 } } },
      execute: (args) => {
        (args.list as unknown[] | undefined)?.push('added');
        return args;
      },
    });
    const input = { list: ['a'] };
    const envelope = await registryWith({}, mutate).call('mutate', input);
    expect(envelope).toEqual({ ok: true, result: { list: ['a', 'added'], n: 3 } });
    expect(input).toEqual({ list: ['a'] });
  });
});

describe('framework errors', () => {
  test('every framework error type is produced by some call (meta-test)', async () => {
    const seen = new Set<string>();
    const slow = defineTool({
      name: 'slow',
      description: 'Never settles.',
      category: 'read',
      timeoutMs: 20,
      execute: () => new Promise(() => {}),
    });
    const cyclic = defineTool({
      name: 'cyclic',
      description: 'Returns a cycle.',
      category: 'read',
      execute: () => {
        const node: { self?: unknown } = {};
        node.self = node;
        return node;
      },
    });
    const guarded = defineTool({
      name: 'guarded',
      description: 'Denied.',
      category: 'write',
      execute: () => 1,
    });
    const malformed = defineTool({
      name: 'malformed',
      description: 'Breaks its own return contract.',
      category: 'read',
      output: z.object({ count: z.number() }),
      execute: () => ({ count: 'three' }) as never,
    });
    const registry = registryWith(
      {
        beforeCall: ({ tool }) =>
          tool.name === 'guarded' ? { action: 'deny', reason: 'writes are off' } : undefined,
      },
      slow,
      cyclic,
      guarded,
      malformed,
    );
    const controller = new AbortController();
    controller.abort();
    const closed = registryWith({});
    await closed.close();
    const asking = registryWith({ beforeCall: () => ({ action: 'ask' }) });
    // A queue whose approval another request of the same call already used.
    const used = registryWith({
      beforeCall: () => ({ action: 'ask' }),
      approvalQueue: () => ({ action: 'deny', outcome: 'approval_already_used', approval: 'a-1' }),
    });
    // An audit that cannot commit the record withholds the outcome.
    const unaudited = registryWith({ observe: () => Promise.reject(new Error('the store is down')) });
    const outcomes = await Promise.all([
      closed.call('echo', { text: 'x' }),
      asking.call('echo', { text: 'x' }, { onAsk: () => ({ action: 'pause' }) }),
      used.call('echo', { text: 'x' }),
      unaudited.call('echo', { text: 'x' }),
      registry.call('nope', {}),
      registry.call('echo', '{bad'),
      registry.call('echo', {}),
      registry.call('guarded', {}),
      registry.call('slow', {}),
      registry.call('echo', { text: 'x' }, { signal: controller.signal }),
      registry.call('cyclic', {}),
      registry.call('malformed', {}),
    ]);
    for (const envelope of outcomes) if (!envelope.ok) seen.add(envelope.error.type);
    expect([...seen].sort()).toEqual([...FRAMEWORK_ERROR_TYPES].sort());
  });

  test('unknown_tool suggests up to three closest names; prototype keys are unknown tools', async () => {
    const registry = registryWith(
      {},
      fails(() => 0, 'read_file'),
      fails(() => 0, 'read_dir'),
      fails(() => 0, 'write_file'),
      fails(() => 0, 'grep'),
    );
    const envelope = await registry.call('read_fil', {});
    expect(isErrorType(envelope, 'unknown_tool') && envelope.error.suggestions).toEqual([
      'read_file',
      'read_dir',
      'write_file',
    ]);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '']) {
      const result = await registry.call(name, {});
      expect(isErrorType(result, 'unknown_tool')).toBe(true);
    }
    const nonString = await registry.call(42 as unknown as string, {});
    expect(isErrorType(nonString, 'unknown_tool')).toBe(true);
  });

  test('invalid_json says where, with line and column', async () => {
    const envelope = await registryWith().call('echo', '{\n  "text": "a",\n  "count": ,\n}');
    expect(isErrorType(envelope, 'invalid_json')).toBe(true);
    if (!isErrorType(envelope, 'invalid_json')) return;
    expect(envelope.error.line).toBe(3);
    expect(envelope.error.column).toBe(12);
    expect(envelope.error.message).toContain('line 3, column 12');
    const truncated = await registryWith().call('echo', '{"text": "a"');
    expect(isErrorType(truncated, 'invalid_json')).toBe(true);
  });

  test('invalid_arguments lists every issue with its path, what was expected and what came', async () => {
    const envelope = await registryWith().call('echo', {
      count: 0,
      mode: 'quiet',
      tags: ['a', 2, 'c', 'd'],
      nested: {},
      extra: true,
    });
    expect(isErrorType(envelope, 'invalid_arguments')).toBe(true);
    if (!isErrorType(envelope, 'invalid_arguments')) return;
    const issues = envelope.error.issues.map(({ code, path }) => `${code} ${path}`).sort();
    expect(issues).toEqual([
      'invalid_type $.tags[1]',
      'invalid_value $.mode',
      'missing_property $.nested.id',
      'missing_property $.text',
      'too_big $.tags',
      'too_small $.count',
      'unknown_property $.extra',
    ]);
    const mode = envelope.error.issues.find((issue) => issue.path === '$.mode')!;
    expect(mode.expected).toBe('one of "plain", "loud"');
    expect(mode.received).toBe('the string "quiet"');
    expect(envelope.error.message).toContain('$.mode');
  });

  test('zod issues carry the same shape', async () => {
    const tool = defineTool({
      name: 'book',
      description: 'Book a room.',
      category: 'write',
      input: z.object({
        room: z.enum(['a', 'b']),
        nights: z.number().int().positive(),
        guests: z.array(z.object({ name: z.string() })),
      }),
      execute: () => 'booked',
    });
    const envelope = await new Registry()
      .register(tool)
      .call('book', { room: 'c', nights: 0, guests: [{}], pets: 2 });
    expect(isErrorType(envelope, 'invalid_arguments')).toBe(true);
    if (!isErrorType(envelope, 'invalid_arguments')) return;
    const byPath = Object.fromEntries(envelope.error.issues.map((issue) => [issue.path, issue]));
    expect(byPath['$.room']?.code).toBe('invalid_value');
    expect(byPath['$.room']?.expected).toBe('one of "a", "b"');
    expect(byPath['$.nights']?.code).toBe('too_small');
    expect(byPath['$.guests[0].name']?.code).toBe('missing_property');
    expect(byPath['$.pets']?.code).toBe('unknown_property');
  });

  test('arguments that are not an object', async () => {
    for (const args of ['[1,2]', '"text"', '42', 'true', [1], 7]) {
      const envelope = await registryWith().call('echo', args);
      expect(isErrorType(envelope, 'invalid_arguments') && envelope.error.issues[0]?.path).toBe('$');
    }
  });

  test('permission_denied from the gate, ask without an approver, approver once and for the session', async () => {
    const write = defineTool({
      name: 'write',
      description: 'Writes.',
      category: 'write',
      execute: () => 'written',
    });
    const asked: string[] = [];
    let answer: 'once' | 'session' | 'deny' = 'deny';
    const registry = new Registry({
      beforeCall: ({ tool }) =>
        tool.category === 'write' ? { action: 'ask', rule: 'write-asks' } : undefined,
      approver: ({ tool }) => {
        asked.push(tool.name);
        if (answer === 'deny') return { action: 'deny', reason: 'the user said no' };
        return { action: 'allow', scope: answer };
      },
    }).register(write);
    const denied = await registry.call('write', {});
    expect(isErrorType(denied, 'permission_denied') && denied.error.reason).toBe('the user said no');
    expect(isErrorType(denied, 'permission_denied') && denied.error.rule).toBe('write-asks');
    answer = 'once';
    expect((await registry.call('write', {})).ok).toBe(true);
    answer = 'session';
    expect((await registry.call('write', {})).ok).toBe(true);
    answer = 'deny';
    expect((await registry.call('write', {})).ok).toBe(true);
    expect(asked).toEqual(['write', 'write', 'write']);

    const noApprover = new Registry({ beforeCall: () => ({ action: 'ask' }) }).register(write);
    const envelope = await noApprover.call('write', {});
    expect(isErrorType(envelope, 'permission_denied') && envelope.error.reason).toMatch(/needs approval/);
  });

  test('a gate or an approver that throws fails closed', async () => {
    const write = defineTool({
      name: 'write',
      description: 'Writes.',
      category: 'write',
      execute: () => 'written',
    });
    const broken = new Registry({
      beforeCall: () => {
        throw new Error('/etc/policy.json is unreadable');
      },
    }).register(write);
    const envelope = await broken.call('write', {});
    expect(isErrorType(envelope, 'permission_denied')).toBe(true);
    expect(JSON.stringify(envelope)).not.toContain('/etc/policy.json');
    const brokenApprover = new Registry({
      beforeCall: () => ({ action: 'ask' }),
      approver: () => Promise.reject(new Error('tty closed')),
    }).register(write);
    expect(isErrorType(await brokenApprover.call('write', {}), 'permission_denied')).toBe(true);
  });

  test('the gate sees validated arguments with defaults applied', async () => {
    const seen: unknown[] = [];
    const registry = registryWith({ beforeCall: ({ arguments: args }) => void seen.push(args) });
    await registry.call('echo', { text: 'a' });
    await registry.call('echo', { text: '' });
    expect(seen).toEqual([{ text: 'a', count: 1 }]);
  });
});

describe('timeouts and aborts', () => {
  const never = defineTool({
    name: 'never',
    description: 'Never settles and ignores its signal.',
    category: 'read',
    execute: () => new Promise(() => {}),
  });

  test('a tool that never settles times out (per tool, per call, registry default: the tightest wins)', async () => {
    const perTool = defineTool({
      name: 'pertool',
      description: 'Never settles.',
      category: 'read',
      timeoutMs: 30,
      execute: () => new Promise(() => {}),
    });
    const registry = new Registry({ defaultTimeoutMs: 5_000 }).register(never, perTool);
    const byTool = await registry.call('pertool', {});
    expect(isErrorType(byTool, 'timeout') && byTool.error.timeoutMs).toBe(30);
    const byCall = await registry.call('never', {}, { timeoutMs: 25 });
    expect(isErrorType(byCall, 'timeout') && byCall.error.timeoutMs).toBe(25);
    const byDefault = await new Registry({ defaultTimeoutMs: 20 }).register(never).call('never', {});
    expect(isErrorType(byDefault, 'timeout') && byDefault.error.timeoutMs).toBe(20);
  });

  test('the tool sees its signal aborted on timeout', async () => {
    let aborted = false;
    const cooperative = defineTool({
      name: 'coop',
      description: 'Waits for its signal.',
      category: 'read',
      execute: (_args, { signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(signal.reason);
          });
        }),
    });
    const envelope = await new Registry().register(cooperative).call('coop', {}, { timeoutMs: 20 });
    expect(isErrorType(envelope, 'timeout')).toBe(true);
    expect(aborted).toBe(true);
  });

  test('a signal first read after the timeout is already aborted', async () => {
    let see: (aborted: boolean) => void = () => {};
    const seen = new Promise<boolean>((resolve) => {
      see = resolve;
    });
    const lateReader = defineTool({
      name: 'late_reader',
      description: 'Reads its signal late.',
      category: 'read',
      execute: async (_args, context) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        see(context.signal.aborted);
      },
    });
    const envelope = await new Registry().register(lateReader).call('late_reader', {}, { timeoutMs: 10 });
    expect(isErrorType(envelope, 'timeout')).toBe(true);
    expect(await seen).toBe(true);
  });

  test('the caller aborts a call in flight, and one not yet started', async () => {
    const registry = new Registry().register(never);
    const controller = new AbortController();
    const pending = registry.call('never', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    expect(isErrorType(await pending, 'aborted')).toBe(true);
    expect(isErrorType(await registry.call('never', {}, { signal: controller.signal }), 'aborted')).toBe(
      true,
    );
  });

  test('a call whose signal is aborted while the tool starts ends as aborted, not never', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const abortsOnStart = defineTool({
      name: 'aborts_on_start',
      description: 'Aborts the caller as it starts, then never settles.',
      category: 'read',
      execute: (_args, context) => {
        toolSignal = context.signal;
        controller.abort(new Error('stop'));
        return new Promise(() => {});
      },
    });
    const envelope = await new Registry()
      .register(abortsOnStart)
      .call('aborts_on_start', {}, { signal: controller.signal });
    expect(isErrorType(envelope, 'aborted')).toBe(true);
    expect(toolSignal?.aborted).toBe(true);
  });

  test('a rejection after the timeout is swallowed, not unhandled', async () => {
    let markRejected: () => void = () => {};
    const rejected = new Promise<void>((resolve) => {
      markRejected = resolve;
    });
    const late = defineTool({
      name: 'late',
      description: 'Rejects after its deadline.',
      category: 'read',
      execute: () =>
        new Promise((_, reject) =>
          setTimeout(() => {
            reject(new Error('too late'));
            markRejected();
          }, 40),
        ),
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const envelope = await new Registry().register(late).call('late', {}, { timeoutMs: 10 });
    // Node reports an unhandled rejection once the microtasks after it have run, before the next turn.
    await rejected;
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    expect(isErrorType(envelope, 'timeout')).toBe(true);
    expect(unhandled).toEqual([]);
  });
});

describe("a tool's own failure", () => {
  test('a thrown Error: its name is the type; no stack, no host path', async () => {
    const registry = registryWith(
      {},
      fails(() => {
        const error = new RangeError(`cannot open ${process.cwd()}/secret/data.bin: bad offset`);
        throw error;
      }),
    );
    const text = await registry.dispatch('fails', {});
    const envelope = expectWellFormed(text);
    expect(!envelope.ok && envelope.error.type).toBe('RangeError');
    expect(text).not.toContain(process.cwd());
    expect(text).toContain('data.bin');
  });

  test('a ToolError chooses type, message, hint, retryable and details', async () => {
    const registry = registryWith(
      {},
      fails(() => {
        throw new ToolError('The index is being rebuilt.', {
          type: 'index_busy',
          hint: 'Wait a few seconds and call again.',
          retryable: true,
          details: { eta: 5n, at: new Date(0) },
        });
      }),
    );
    expect(await registry.call('fails', {})).toEqual({
      ok: false,
      error: {
        type: 'index_busy',
        tool: 'fails',
        message: 'The index is being rebuilt.',
        hint: 'Wait a few seconds and call again.',
        retryable: true,
        details: { eta: '5', at: '1970-01-01T00:00:00.000Z' },
      },
    });
  });

  test.each([
    ['a string', 'disk full', 'disk full'],
    ['an object', { code: 42 }, '{"code":42}'],
    ['undefined', undefined, 'failed without saying why'],
    ['null', null, 'null'],
    ['a number', 7, '7'],
  ])('a thrown non-Error (%s) still gives a well-formed envelope', async (_label, thrown, fragment) => {
    const registry = registryWith(
      {},
      fails(() => {
        throw thrown;
      }),
    );
    const envelope = expectWellFormed(await registry.dispatch('fails', {}));
    expect(!envelope.ok && envelope.error.type).toBe('tool_error');
    expect(!envelope.ok && envelope.error.message).toContain(fragment);
  });

  test('an async rejection and an error with a hostile name', async () => {
    const weird = new Error('x');
    Object.defineProperty(weird, 'name', { value: 'Bad Name\n<script>' });
    const registry = registryWith(
      {},
      fails(() => Promise.reject(new TypeError('nope')), 'rejects'),
      fails(() => {
        throw weird;
      }, 'weird'),
    );
    const rejects = await registry.call('rejects', {});
    expect(!rejects.ok && rejects.error.type).toBe('TypeError');
    const hostile = await registry.call('weird', {});
    expect(!hostile.ok && hostile.error.type).toBe('Error');
  });
});

describe('results', () => {
  test('BigInt, Date, Map, Set, undefined, typed arrays and Errors are serialized safely', async () => {
    const tool = defineTool({
      name: 'odd',
      description: 'Odd values.',
      category: 'read',
      execute: () => ({
        big: 2n ** 70n,
        when: new Date(Date.UTC(2026, 0, 2)),
        invalid: new Date(Number.NaN),
        map: new Map([['a', 1]]),
        keyed: new Map<unknown, number>([[{ id: 1 }, 2]]),
        set: new Set(['x', 'y']),
        missing: undefined,
        list: [undefined, () => 1, Number.NaN, Number.POSITIVE_INFINITY],
        bytes: new Uint8Array([1, 2, 255]),
        floats: new Float64Array([0.5]),
        bigints: new BigInt64Array([3n]),
        error: new SyntaxError('bad'),
        shared: [{ a: 1 }, { a: 1 }],
      }),
    });
    const envelope = await new Registry().register(tool).call('odd', {});
    expect(envelope).toEqual({
      ok: true,
      result: {
        big: '1180591620717411303424',
        when: '2026-01-02T00:00:00.000Z',
        invalid: null,
        map: { a: 1 },
        keyed: [[{ id: 1 }, 2]],
        set: ['x', 'y'],
        list: [null, null, null, null],
        bytes: [1, 2, 255],
        floats: [0.5],
        bigints: ['3'],
        error: { name: 'SyntaxError', message: 'bad' },
        shared: [{ a: 1 }, { a: 1 }],
      },
    });
  });

  test('undefined as a result is null; a shared (non-cyclic) reference is fine; a cycle is result_not_serializable', async () => {
    const shared = { v: 1 };
    const registry = new Registry().register(
      defineTool({ name: 'nothing', description: 'Nothing.', category: 'read', execute: () => undefined }),
      defineTool({
        name: 'shared',
        description: 'Shared.',
        category: 'read',
        execute: () => [shared, shared],
      }),
      defineTool({
        name: 'cycle',
        description: 'Cycle.',
        category: 'read',
        execute: () => {
          const list: unknown[] = [];
          list.push({ list });
          return list;
        },
      }),
    );
    expect(await registry.dispatch('nothing', {})).toBe('{"ok":true,"result":null}');
    expect(await registry.call('shared', {})).toEqual({ ok: true, result: [{ v: 1 }, { v: 1 }] });
    const cycle = await registry.call('cycle', {});
    expect(isErrorType(cycle, 'result_not_serializable') && cycle.error.message).toContain('$[0].list');
  });

  test('a result over the size bound is cut with a marker the model can see', async () => {
    const registry = new Registry({ maxResultChars: 1_000 }).register(
      defineTool({
        name: 'big',
        description: 'Big text.',
        category: 'read',
        execute: () => 'ab'.repeat(5_000),
      }),
      defineTool({
        name: 'bigjson',
        description: 'Big JSON.',
        category: 'read',
        execute: () => Array.from({ length: 500 }, (_, id) => ({ id })),
      }),
      defineTool({
        name: 'emoji',
        description: 'Emoji.',
        category: 'read',
        execute: () => '😀'.repeat(1_000),
      }),
    );
    for (const name of ['big', 'bigjson', 'emoji']) {
      const text = await registry.dispatch(name, {});
      expect(text.length).toBeLessThanOrEqual(1_000);
      const envelope = JSON.parse(text) as Envelope<string>;
      expect(envelope.ok && envelope.truncated?.shownChars).toBe(envelope.ok && envelope.result.length);
      expect(envelope.ok && envelope.truncated?.message).toMatch(/cut to its first \d+ of \d+ characters/);
      expect(envelope.ok && envelope.result.at(-1)).not.toMatch(/[\uD800-\uDBFF]/);
    }
  });
});

describe('hostile input', () => {
  test('__proto__ keys are refused; constructor and prototype keys stay plain data; nothing is polluted', async () => {
    const keep = defineTool({
      name: 'keep',
      description: 'Returns its arguments.',
      category: 'read',
      input: { type: 'object' },
      execute: (args) => ({ ...args }),
    });
    const registry = new Registry().register(keep);
    const proto = await registry.call('keep', '{"a":{"__proto__":{"polluted":true}}}');
    expect(isErrorType(proto, 'invalid_arguments') && proto.error.issues[0]).toMatchObject({
      code: 'forbidden_key',
      path: '$.a.__proto__',
    });
    const plainKeys = await registry.call(
      'keep',
      '{"constructor":{"prototype":{"polluted":true}},"prototype":1}',
    );
    expect(plainKeys).toEqual({
      ok: true,
      result: { constructor: { prototype: { polluted: true } }, prototype: 1 },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('argument size and depth are bounded', async () => {
    const keep = defineTool({
      name: 'keep',
      description: 'Keeps.',
      category: 'read',
      input: { type: 'object' },
      execute: () => 1,
    });
    const registry = new Registry({ limits: { maxBytes: 1_000, maxDepth: 8, maxNodes: 50 } }).register(keep);
    const big = await registry.call('keep', JSON.stringify({ text: 'x'.repeat(2_000) }));
    expect(isErrorType(big, 'invalid_arguments') && big.error.issues[0]?.code).toBe('too_large');
    const deep = await registry.call('keep', `${'{"a":'.repeat(20)}1${'}'.repeat(20)}`);
    expect(isErrorType(deep, 'invalid_arguments') && deep.error.issues[0]?.code).toBe('too_deep');
    const many = await registry.call('keep', { list: Array.from({ length: 100 }, (_, index) => index) });
    expect(isErrorType(many, 'invalid_arguments') && many.error.issues[0]?.code).toBe('too_large');
    // The default depth bound holds for a 100,000-deep nesting without a stack overflow.
    const veryDeep = await new Registry()
      .register(keep)
      .call('keep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(veryDeep.ok).toBe(false);
  });
});

describe('observers', () => {
  test('are told of every call, and cannot break one', async () => {
    const records: CallRecord[] = [];
    const registry = registryWith({
      beforeCall: ({ arguments: args }) =>
        (args as { text: string }).text === 'no'
          ? { action: 'deny', reason: 'no', rule: 'r1' }
          : { action: 'allow', rule: 'r0' },
      observe: (record) => {
        records.push(record);
        throw new Error('observer bug');
      },
    });
    expect((await registry.call('echo', { text: 'yes' }, { callId: 'c1' })).ok).toBe(true);
    await registry.call('echo', { text: 'no' });
    await registry.call('missing', {});
    expect(
      records.map(({ tool, outcome, decision, callId }) => [tool, outcome, decision?.rule, callId]),
    ).toEqual([
      ['echo', 'ok', 'r0', 'c1'],
      ['echo', 'permission_denied', 'r1', undefined],
      ['missing', 'unknown_tool', undefined, undefined],
    ]);
    expect(records[0]?.arguments).toEqual({ text: 'yes', count: 1 });
  });
});

describe('how execute and validate are called', () => {
  test('execute runs as a plain function and validate on the tool object, as before', async () => {
    let executeThis: unknown = 'unset';
    let validateThis: unknown = 'unset';
    const base = defineTool({
      name: 'receivers',
      description: 'Records the receivers it is called with.',
      category: 'read',
      execute: function (this: unknown) {
        executeThis = this;
        return 'done';
      },
    });
    const tool: AnyTool = Object.freeze({
      ...base,
      validate(this: unknown, value: unknown) {
        validateThis = this;
        return { ok: true as const, value };
      },
    });
    expect(await new Registry().register(tool).call('receivers', {})).toEqual({ ok: true, result: 'done' });
    expect(executeThis).toBeUndefined();
    expect(validateThis).toBe(tool);
  });
});

describe('parameters named like Object.prototype members', () => {
  test('are required and typed as their own properties, never met through the prototype', async () => {
    const tool = defineTool({
      name: 'protonames',
      description: 'Parameters with awkward names.',
      category: 'read',
      input: {
        type: 'object',
        properties: { constructor: { type: 'string' }, toString: { type: 'string' } },
        required: ['constructor'],
      },
      execute: (args) => args,
    });
    const registry = new Registry().register(tool);
    const missing = await registry.call('protonames', {});
    expect(
      isErrorType(missing, 'invalid_arguments') && missing.error.issues.map((issue) => issue.path),
    ).toEqual(['$.constructor']);
    expect(await registry.call('protonames', { constructor: 'x' })).toEqual({
      ok: true,
      result: { constructor: 'x' },
    });
  });

  test('anywhere in the schema: nested, in dependentRequired, and in results', async () => {
    const tool = defineTool({
      name: 'deep_protonames',
      description: 'Awkward names below the root.',
      category: 'read',
      input: {
        type: 'object',
        properties: {
          options: {
            type: 'object',
            properties: { valueOf: { type: 'integer' }, mode: { type: 'string' } },
            dependentRequired: { mode: ['hasOwnProperty'] },
          },
        },
        required: ['options'],
      },
      output: {
        type: 'object',
        properties: { toString: { type: 'string' } },
        required: ['toString'],
      },
      // With a mode, a result that breaks the output schema on purpose.
      execute: (args) =>
        'mode' in args.options ? ({} as { toString: string }) : { toString: JSON.stringify(args.options) },
    });
    const registry = new Registry().register(tool);
    expect(await registry.call('deep_protonames', { options: { valueOf: 3 } })).toEqual({
      ok: true,
      result: { toString: '{"valueOf":3}' },
    });
    // An inherited valueOf is not an integer given: the field counts only when it is sent.
    expect(await registry.call('deep_protonames', { options: {} })).toEqual({
      ok: true,
      result: { toString: '{}' },
    });
    const missing = await registry.call('deep_protonames', { options: { mode: 'x' } });
    // The inherited hasOwnProperty does not meet the dependency: only a sent one does.
    expect(
      isErrorType(missing, 'invalid_arguments') &&
        missing.error.issues.map((issue) => [issue.path, issue.expected.includes('hasOwnProperty')]),
    ).toEqual([['$.options', true]]);
    // A result missing its inherited-looking key is refused, not met through the prototype.
    const result = await registry.call('deep_protonames', { options: { mode: 'x', hasOwnProperty: 1 } });
    expect(isErrorType(result, 'invalid_result')).toBe(true);
  });
});
