import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from 'vitest';
import { createTool, Registry } from '../../src/index.js';
import { importMcpTools } from '../../src/mcp/index.js';

// A server that publishes what real servers sometimes do: duplicates, bad schemas, odd names, no
// descriptions, draft-07 tuples, more pages than it should, and results that do not match their schema.

function rawServer(
  tools: Tool[],
  options: { pageSize?: number; call?: (name: string, args: unknown) => unknown } = {},
) {
  const server = new Server({ name: 'odd server', version: '1' }, { capabilities: { tools: {} } });
  const pageSize = options.pageSize ?? tools.length;
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const offset = Number(request.params?.cursor ?? 0);
    const end = offset + pageSize;
    return { tools: tools.slice(offset, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const answer = options.call?.(request.params.name, request.params.arguments);
    return (answer ?? { content: [{ type: 'text', text: 'done' }] }) as never;
  });
  return server;
}

async function importFrom(server: Server, registry = new Registry(), maxTools?: number) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const imported = await importMcpTools(registry, { transport: clientSide }, maxTools ? { maxTools } : {});
  return { registry, imported };
}

const object = (properties: Record<string, object> = {}) => ({ type: 'object' as const, properties });

test('bad tools are skipped with a code and a reason; odd ones are imported and reported', async () => {
  const { registry, imported } = await importFrom(
    rawServer(
      [
        { name: 'good', description: 'A good tool.', inputSchema: object({ a: { type: 'string' } }) },
        { name: 'good', description: 'The same name again.', inputSchema: object() },
        {
          name: 'bad_schema',
          description: 'Its schema is not JSON Schema.',
          inputSchema: object({ a: { type: 'strin' } }),
        },
        { name: 'read file', description: 'A name with a space.', inputSchema: object() },
        { name: 'silent', inputSchema: object() },
        {
          name: 'tuple',
          description: 'A draft-07 tuple.',
          inputSchema: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            ...object({
              pair: {
                type: 'array',
                items: [{ type: 'string' }, { type: 'integer' }],
                additionalItems: false,
              },
            }),
          },
        },
      ],
      { pageSize: 2 },
    ),
  );
  expect(imported.server).toBe('odd server');
  expect(imported.skipped().map((skip) => [skip.remoteName, skip.code])).toEqual([
    ['good', 'duplicate_on_server'],
    ['bad_schema', 'invalid_schema'],
  ]);
  expect(imported.skipped()[1]!.message).toContain('bad_schema');
  expect(imported.tools().find((tool) => tool.remoteName === 'read file')).toMatchObject({
    name: 'read_file',
    renamed: 'invalid_name',
  });
  expect(imported.undescribed()).toEqual(['silent']);
  expect(registry.get('silent')!.contract.description).toContain('gives no description');
  // The draft-07 tuple is validated as a tuple.
  expect(await registry.call('tuple', { pair: ['a', 1] })).toMatchObject({ ok: true });
  const wrong = await registry.call('tuple', { pair: ['a', 'b'] });
  expect(wrong).toMatchObject({ ok: false, error: { type: 'invalid_arguments' } });
  const extra = await registry.call('tuple', { pair: ['a', 1, 2] });
  expect(extra).toMatchObject({ ok: false, error: { type: 'invalid_arguments' } });
  await imported.close();
});

test('the renamed tool is called by its remote name', async () => {
  const seen: string[] = [];
  const { registry, imported } = await importFrom(
    rawServer([{ name: 'read file', description: 'Spaces.', inputSchema: object() }], {
      call: (name) => {
        seen.push(name);
        return undefined;
      },
    }),
  );
  expect(await registry.call('read_file', {})).toEqual({ ok: true, result: 'done' });
  expect(seen).toEqual(['read file']);
  await imported.close();
});

test('maxTools stops the import and says so', async () => {
  const tools = Array.from({ length: 5 }, (_, index) => ({
    name: `t${index}`,
    description: 'A tool.',
    inputSchema: object(),
  }));
  const { registry, imported } = await importFrom(rawServer(tools, { pageSize: 2 }), new Registry(), 3);
  expect(registry.size).toBe(3);
  expect(imported.skipped().map((skip) => [skip.remoteName, skip.code])).toEqual([
    ['t3', 'limit_reached'],
    ['t4', 'limit_reached'],
  ]);
  await imported.close();
});

test('a structuredContent that breaks its outputSchema is an mcp_protocol_error, not a success', async () => {
  const { registry, imported } = await importFrom(
    rawServer(
      [
        {
          name: 'weather',
          description: 'Weather.',
          inputSchema: object(),
          outputSchema: {
            type: 'object',
            properties: { temperature: { type: 'number' } },
            required: ['temperature'],
          },
        },
      ],
      {
        call: () => ({ content: [{ type: 'text', text: '{}' }], structuredContent: { temperature: 'hot' } }),
      },
    ),
  );
  // The SDK client checks structuredContent only for tools it has listed itself.
  await imported.client.listTools();
  const envelope = await registry.call('weather', {});
  expect(envelope).toMatchObject({ ok: false, error: { type: 'mcp_protocol_error' } });
  await imported.close();
});

test('a remote error without any text still gives the model a message', async () => {
  const { registry, imported } = await importFrom(
    rawServer([{ name: 'broken', description: 'Fails.', inputSchema: object() }], {
      call: () => ({ content: [], isError: true }),
    }),
  );
  const envelope = await registry.call('broken', {});
  expect(envelope).toMatchObject({ ok: false, error: { type: 'mcp_tool_error' } });
  if (!envelope.ok)
    expect(envelope.error.message).toContain('"odd server" reported an error without a message');
  await imported.close();
});

test('a remote name that a provider would alias onto a local name is prefixed, not refused', async () => {
  const registry = new Registry().register(
    createTool(
      { name: 'admin_list', description: 'Local.', category: 'read', parameters: { type: 'object' } },
      { execute: () => 'local' },
    ),
  );
  const { imported } = await importFrom(
    rawServer([{ name: 'admin.list', description: 'Remote.', inputSchema: object() }]),
    registry,
  );
  expect(imported.tools()).toEqual([
    expect.objectContaining({
      remoteName: 'admin.list',
      name: 'odd_server_admin.list',
      renamed: 'collision',
    }),
  ]);
  expect(await registry.call('odd_server_admin.list', {})).toEqual({ ok: true, result: 'done' });
  await imported.close();
});

test('a default that breaks its own schema is dropped and reported; the tool is imported and works', async () => {
  const sent: unknown[] = [];
  const { registry, imported } = await importFrom(
    rawServer(
      [
        {
          name: 'install',
          description: 'Install a package.',
          inputSchema: {
            ...object({
              name: { type: 'string' },
              manager: { type: 'string', enum: ['runtime', 'package_manager'], default: '' },
              dry_run: { type: 'boolean', default: 'false' },
              retries: { type: 'integer', default: 2, examples: [1, 'three'] },
            }),
            required: ['name'],
          },
          outputSchema: object({ ok: { type: 'boolean', default: 'yes' } }),
        },
        {
          name: 'pinned',
          description: 'A const no value can meet.',
          inputSchema: object({ version: { type: 'integer', const: 'two' } }),
        },
      ],
      {
        call: (_name, args) => {
          sent.push(args);
          return { content: [{ type: 'text', text: 'installed' }], structuredContent: { ok: true } };
        },
      },
    ),
  );
  expect(imported.tools().map((tool) => tool.name)).toEqual(['install']);
  expect(
    imported
      .droppedDefaults()
      .map((entry) => [entry.tool, entry.keyword, entry.path, entry.value, entry.expected]),
  ).toEqual([
    [
      'install',
      'default',
      '$.parameters.properties.manager.default',
      '',
      'one of "runtime", "package_manager"',
    ],
    ['install', 'default', '$.parameters.properties.dry_run.default', 'false', 'boolean'],
    ['install', 'examples', '$.parameters.properties.retries.examples[1]', 'three', 'integer'],
    ['install', 'default', '$.returns.schema.properties.ok.default', 'yes', 'boolean'],
  ]);
  const contract = registry.get('install')!.contract;
  expect(contract.parameters.properties).toMatchObject({
    manager: { type: 'string', enum: ['runtime', 'package_manager'] },
    dry_run: { type: 'boolean' },
    retries: { type: 'integer', default: 2, examples: [1] },
  });
  expect((contract.parameters.properties as Record<string, object>).manager).not.toHaveProperty('default');
  // The model rightly leaves the fields out: the call goes through, with only the good default filled in.
  expect(await registry.call('install', { name: 'left-pad' })).toMatchObject({ ok: true });
  expect(sent).toEqual([{ name: 'left-pad', retries: 2 }]);
  // A const its own type refuses makes every call fail, so that tool is skipped, with the reason.
  expect(imported.skipped()).toEqual([
    expect.objectContaining({
      remoteName: 'pinned',
      code: 'invalid_default',
      message: expect.stringContaining('$.parameters.properties.version.const'),
    }),
  ]);
  await imported.close();
});
