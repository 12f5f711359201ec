import { describe, expect, test } from 'vitest';
import {
  definePrompt,
  defineResource,
  type OfferingKind,
  Registry,
  RegistryRequestError,
  ToolError,
  UriTemplate,
} from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { definitionError } from '../support/definition-error.js';

const readme = defineResource({
  name: 'readme',
  uri: 'notes://readme',
  description: 'The workspace README.',
  mimeType: 'text/markdown',
  read: () => '# Notes',
});

const note = defineResource({
  name: 'note',
  template: 'notes://{name}',
  description: 'One note, by name.',
  complete: { name: (typed) => ['todo', 'ideas', 'tomorrow'].filter((name) => name.startsWith(typed)) },
  read: (_uri, { name }) => `note ${name}`,
});

const review = definePrompt({
  name: 'review',
  description: 'Review one file.',
  arguments: {
    path: { description: 'The file.', required: true, complete: (typed) => [`${typed}a.ts`, `${typed}b.ts`] },
    tone: { description: 'How blunt.' },
  },
  get: ({ path, tone }) => `Review ${path}${tone ? ` (${tone})` : ''}.`,
});

async function refusal(promise: Promise<unknown>): Promise<RegistryRequestError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RegistryRequestError);
  return error as RegistryRequestError;
}

describe('defineResource and definePrompt refuse what cannot work', () => {
  test.each([
    [{ uri: 'notes://a', template: 'notes://{a}' }, 'both a uri and a template'],
    [{}, 'neither a uri nor a template'],
    [{ uri: 'not a uri' }, 'not an absolute URI'],
    [{ template: 'notes://{a/b}' }, '"{a/b}"'],
    [{ template: 'notes://{#frag}' }, '"{#frag}"'],
    [{ template: 'notes://{a}{b}' }, 'right after another variable'],
    [{ template: 'notes://{a}/{a}' }, '"a" twice'],
    [{ template: 'notes://{a' }, 'without its "}"'],
    [{ template: 'notes://fixed' }, 'no variable'],
    [{ uri: 'notes://a', size: -1 }, 'the size -1'],
    [
      { template: 'notes://{a}', complete: { b: () => [] } },
      '"b", which is not one of its template variables',
    ],
  ])('%j', (shape, fragment) => {
    const error = definitionError(() =>
      defineResource({ name: 'r', description: 'A resource.', read: () => '', ...shape }),
    );
    expect(error.code).toBe('invalid_option');
    expect(error.message).toContain(fragment);
  });

  test('a resource or prompt without a description or with a control character in its name', () => {
    expect(
      definitionError(() => defineResource({ name: 'r', uri: 'a:b', description: ' ', read: () => '' })).code,
    ).toBe('missing_description');
    expect(definitionError(() => definePrompt({ name: 'a\nb', description: 'x', get: () => '' })).code).toBe(
      'invalid_name',
    );
  });

  test('a prompt argument whose name a client cannot send', () => {
    const error = definitionError(() =>
      definePrompt({
        name: 'p',
        description: 'x',
        arguments: { 'bad name': {} },
        get: () => '',
      }),
    );
    expect(error.code).toBe('invalid_option');
  });
});

describe('URI templates', () => {
  test('a level 1 variable stops at "/", a reserved one does not, and values are decoded', () => {
    expect(UriTemplate.parse('notes://{name}').match('notes://a%20b')).toEqual({ name: 'a b' });
    expect(UriTemplate.parse('notes://{name}').match('notes://a/b')).toBeUndefined();
    expect(UriTemplate.parse('file:///{+path}').match('file:///a/b.txt')).toEqual({ path: 'a/b.txt' });
    expect(UriTemplate.parse('notes://{name}').match('notes://%E0%A4%A')).toBeUndefined();
    expect(UriTemplate.parse('x://{a}.{b}').match('x://1.2')).toEqual({ a: '1', b: '2' });
  });

  test('regular-expression characters in the literal part match only themselves', () => {
    expect(UriTemplate.parse('x://a.b/{n}').match('x://aXb/1')).toBeUndefined();
  });
});

describe('a registry holds resources and prompts', () => {
  test('lists in registration order, refuses duplicates, tells listeners which kind changed', () => {
    const registry = new Registry();
    const changes: OfferingKind[] = [];
    registry.onListChange((kind) => changes.push(kind));
    registry.registerResource(readme, note).registerPrompt(review);
    expect(registry.resources().map((each) => each.key)).toEqual(['notes://readme', 'notes://{name}']);
    expect(registry.prompts().map((each) => each.name)).toEqual(['review']);
    expect(definitionError(() => registry.registerResource(readme)).code).toBe('duplicate_name');
    expect(definitionError(() => registry.registerPrompt(review)).code).toBe('duplicate_name');
    expect(definitionError(() => registry.registerResource({ name: 'fake' } as never)).code).toBe(
      'not_a_tool',
    );
    expect(registry.unregisterResource('notes://{name}')).toBe(true);
    expect(registry.unregisterResource('notes://{name}')).toBe(false);
    expect(registry.unregisterPrompt('review')).toBe(true);
    expect(changes).toEqual(['resources', 'prompts', 'resources', 'prompts']);
  });

  test('a failed registration registers nothing', () => {
    const registry = new Registry().registerResource(readme);
    expect(() => registry.registerResource(note, readme)).toThrow();
    expect(registry.resources()).toHaveLength(1);
  });
});

describe('readResource', () => {
  const registry = new Registry().registerResource(readme, note);

  test('a static URI, then a template, answer MCP contents', async () => {
    expect(await registry.readResource('notes://readme')).toEqual({
      contents: [{ uri: 'notes://readme', mimeType: 'text/markdown', text: '# Notes' }],
    });
    expect(await registry.readResource('notes://todo')).toEqual({
      contents: [{ uri: 'notes://todo', text: 'note todo' }],
    });
  });

  test('bytes become base64 and contents pass through untouched', async () => {
    const passed = [{ uri: 'x://one', text: 'one', _meta: { kept: true } }];
    const local = new Registry().registerResource(
      defineResource({
        name: 'b',
        uri: 'x://bytes',
        description: 'Bytes.',
        read: () => new Uint8Array([1, 2, 255]),
      }),
      defineResource({ name: 'c', uri: 'x://one', description: 'Relayed.', read: () => passed }),
    );
    expect((await local.readResource('x://bytes')).contents).toEqual([{ uri: 'x://bytes', blob: 'AQL/' }]);
    expect((await local.readResource('x://one')).contents).toBe(passed);
  });

  test('an unknown URI is not_found and names the way out', async () => {
    const error = await refusal(registry.readResource('other://x'));
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('resources/list');
  });

  test("a read that throws is failed, with a ToolError's words and no host path", async () => {
    const local = new Registry().registerResource(
      defineResource({
        name: 'a',
        uri: 'x://a',
        description: 'A.',
        read: () => {
          throw new ToolError('The note is locked.', { hint: 'Ask its owner.' });
        },
      }),
      defineResource({
        name: 'b',
        uri: 'x://b',
        description: 'B.',
        read: () => {
          throw new Error('ENOENT: /home/someone/secret/notes.md');
        },
      }),
      defineResource({ name: 'c', uri: 'x://c', description: 'C.', read: () => 42 as never }),
    );
    const locked = await refusal(local.readResource('x://a'));
    expect(locked.code).toBe('failed');
    expect(locked.message).toContain('The note is locked. Ask its owner.');
    const missing = await refusal(local.readResource('x://b'));
    expect(missing.message).not.toContain('/home/someone');
    expect((await refusal(local.readResource('x://c'))).code).toBe('failed');
  });

  test('a closed registry refuses', async () => {
    const closed = new Registry().registerResource(readme);
    await closed.close();
    expect((await refusal(closed.readResource('notes://readme'))).code).toBe('closed');
  });

  test('subscribeResource reaches the definition, and a resource without subscribe never updates', async () => {
    let updates = 0;
    const watched = defineResource({
      name: 'w',
      uri: 'x://w',
      description: 'Watched.',
      read: () => '',
      subscribe: (_uri, updated) => {
        updated();
        return () => {
          updates = -1;
        };
      },
    });
    const local = new Registry().registerResource(watched, readme);
    const stop = await local.subscribeResource('x://w', () => updates++);
    expect(updates).toBe(1);
    stop();
    expect(updates).toBe(-1);
    (await local.subscribeResource('notes://readme', () => updates++))();
    expect(updates).toBe(-1);
    expect((await refusal(local.subscribeResource('x://none', () => {}))).code).toBe('not_found');
  });
});

describe('getPrompt', () => {
  const registry = new Registry().registerPrompt(review);

  test('checked arguments reach get; text becomes one user message', async () => {
    expect(await registry.getPrompt('review', { path: 'a.ts', tone: 'kind' })).toEqual({
      description: 'Review one file.',
      messages: [{ role: 'user', content: { type: 'text', text: 'Review a.ts (kind).' } }],
    });
  });

  test.each([
    [{}, '"path" is required and missing'],
    [{ path: 'a', extra: 'x' }, '"extra" is not one of its arguments'],
    [{ path: 1 }, '"path" is number, not a string'],
    [['a'], 'an array, not an object'],
    [{ path: 'a', __proto__: 'x' }, undefined],
  ])('arguments %j are refused', async (args, fragment) => {
    const outcome = registry.getPrompt('review', args);
    if (fragment === undefined) {
      // `__proto__` in a literal sets the prototype, not a key: nothing unknown was given.
      await expect(outcome).resolves.toBeDefined();
      return;
    }
    const error = await refusal(outcome);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain(fragment);
    expect(error.message).toContain('path (required), tone');
  });

  test('an own "__proto__" key is an unknown argument, not a prototype', async () => {
    const error = await refusal(registry.getPrompt('review', JSON.parse('{"path":"a","__proto__":"x"}')));
    expect(error.message).toContain('"__proto__" is not one of its arguments');
  });

  test('an unknown prompt is not_found and lists the prompts', async () => {
    const error = await refusal(registry.getPrompt('reveiw'));
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('The prompts are: review.');
  });

  test('messages and whole results pass through', async () => {
    const messages = [{ role: 'assistant' as const, content: { type: 'text' as const, text: 'hi' } }];
    const local = new Registry().registerPrompt(
      definePrompt({ name: 'm', description: 'M.', get: () => messages }),
      definePrompt({ name: 'r', description: 'R.', get: () => ({ description: 'own', messages }) }),
      definePrompt({ name: 'bad', description: 'Bad.', get: () => [{ role: 'system' }] as never }),
    );
    expect((await local.getPrompt('m')).messages).toBe(messages);
    expect(await local.getPrompt('r')).toEqual({ description: 'own', messages });
    expect((await refusal(local.getPrompt('bad'))).code).toBe('failed');
  });
});

describe('complete', () => {
  const many = definePrompt({
    name: 'many',
    description: 'Many values.',
    arguments: { n: { complete: () => Array.from({ length: 150 }, (_, index) => `v${index}`) }, plain: {} },
    get: () => '',
  });
  const registry = new Registry().registerResource(readme, note).registerPrompt(review, many);

  test('a prompt argument and a template variable', async () => {
    expect(
      await registry.complete({ type: 'ref/prompt', name: 'review' }, { name: 'path', value: 'src/' }),
    ).toEqual({
      values: ['src/a.ts', 'src/b.ts'],
    });
    expect(
      await registry.complete({ type: 'ref/resource', uri: 'notes://{name}' }, { name: 'name', value: 't' }),
    ).toEqual({ values: ['todo', 'tomorrow'] });
  });

  test('at most 100 values, with the total', async () => {
    const answer = await registry.complete({ type: 'ref/prompt', name: 'many' }, { name: 'n', value: '' });
    expect(answer.values).toHaveLength(100);
    expect(answer).toMatchObject({ total: 150, hasMore: true });
  });

  test('an argument without completions answers none; an unknown reference is refused', async () => {
    expect(
      await registry.complete({ type: 'ref/prompt', name: 'many' }, { name: 'plain', value: '' }),
    ).toEqual({
      values: [],
    });
    expect(
      await registry.complete({ type: 'ref/prompt', name: 'many' }, { name: 'toString', value: '' }),
    ).toEqual({
      values: [],
    });
    const prompt = await refusal(
      registry.complete({ type: 'ref/prompt', name: 'nope' }, { name: 'a', value: '' }),
    );
    expect(prompt.code).toBe('not_found');
    const resource = await refusal(
      registry.complete({ type: 'ref/resource', uri: 'notes://readme' }, { name: 'a', value: '' }),
    );
    expect(resource.code).toBe('not_found');
    const other = await refusal(registry.complete({ type: 'ref/other' } as never, { name: 'a', value: '' }));
    expect(other.code).toBe('invalid_arguments');
  });
});

describe('completions under the gate', () => {
  // A file tree a template completes, as a filesystem server's would.
  const files = ['/home/ann/todo.md', '/home/ann/notes.md', '/etc/shadow', '/etc/passwd'];
  const file = defineResource({
    name: 'file',
    template: 'file://{+path}',
    description: 'A file, by path.',
    complete: { path: (typed) => files.filter((path) => path.startsWith(typed)) },
    read: (_uri, { path }) => `file ${path}`,
  });
  const ask = definePrompt({
    name: 'ask',
    description: 'Ask about a topic.',
    arguments: { topic: { required: true, complete: (typed) => [`${typed}public`, `${typed}secret`] } },
    get: ({ topic }) => `About ${topic}.`,
  });
  const asked: string[] = [];
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        { id: 'no-etc', action: 'deny', target: 'resource', uri: 'file:///etc/**' },
        {
          id: 'no-secrets',
          action: 'deny',
          target: 'prompt',
          when: (subject) => String((subject.arguments as { topic?: string }).topic).includes('secret'),
        },
        { id: 'ask-home', action: 'ask', target: 'resource', uri: 'file:///home/ann/notes.md' },
        { id: 'rest', action: 'allow', target: ['resource', 'prompt'] },
      ],
    }),
  );
  const registry = new Registry({
    ...gate.registryOptions,
    approver: (request) => {
      asked.push(request.tool.name);
      return { action: 'allow', scope: 'once' };
    },
  })
    .registerResource(file)
    .registerPrompt(ask);
  const complete = (value: string) =>
    registry.complete({ type: 'ref/resource', uri: 'file://{+path}' }, { name: 'path', value });

  test('a suggestion that leads to a denied read, or one that needs an approval, is left out', async () => {
    expect(await complete('/')).toEqual({ values: ['/home/ann/todo.md'] });
    expect(await complete('/home/')).toEqual({ values: ['/home/ann/todo.md'] });
    // Nobody is asked to let a suggestion be seen.
    expect(asked).toEqual([]);
  });

  test.each(['/etc/', '/etc/sh', '//etc/', '/ETC/', '/%65tc/', '/home/../etc/'])(
    'a value typed into a denied place is refused, however it is spelled: %s',
    async (typed) => {
      const refused = await refusal(complete(typed));
      expect(refused.code).toBe('denied');
      expect(refused.message).toContain('Completing "path" of the resource template "file://{+path}"');
      expect(refused.message).toContain('not permitted');
    },
  );

  test('a prompt argument: the suggestion that a rule on the arguments denies is left out', async () => {
    expect(
      await registry.complete({ type: 'ref/prompt', name: 'ask' }, { name: 'topic', value: 'a-' }),
    ).toEqual({
      values: ['a-public'],
    });
    const refused = await refusal(
      registry.complete({ type: 'ref/prompt', name: 'ask' }, { name: 'topic', value: 'secret' }),
    );
    expect(refused.code).toBe('denied');
  });

  test('the reads themselves still ask, and are allowed by the approver', async () => {
    const { contents } = await registry.readResource('file:///home/ann/notes.md');
    expect(JSON.stringify(contents)).toContain('file /home/ann/notes.md');
    expect(asked).toEqual(['file']);
  });
});
