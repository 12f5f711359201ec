/**
 * Tokens per tool of toolpact's provider output against what zod's `z.toJSONSchema`, the Vercel AI SDK
 * (`asSchema(...).jsonSchema`, what its OpenAI and Anthropic providers send) and the MCP SDK's `McpServer`
 * (tools/list) emit for the same 20 tools (the example workspace tools plus BFCL picks), wrapped in each
 * provider's tool shape; whether our output keeps every description and constraint; and the time of
 * `registry.schemas(format)` for 1, 100 and 10,000 tools, first call and cached.
 *
 * The peers start from the same schema: each contract's parameters read into zod with `z.fromJSONSchema`.
 * Gemini peers get the JSON Schema as is (the AI SDK's Google provider package is not installed here).
 * For MCP the peers carry the same tool: the MCP SDK's row is its own tools/list entry for a tool
 * registered with the contract's `title` and `annotations`, and the schema-only peers are wrapped with
 * the same two fields, since a host reads them (display, approval) and a tool without them is not the
 * same tool. The row that gives the peers neither is printed below it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { asSchema, zodSchema } from 'ai';
import * as z from 'zod';
import workspace from '../examples/workspace/index.js';
import {
  createTool,
  type ProviderFormat,
  Registry,
  type SchemaOptions,
  type ToolContract,
} from '../src/index.js';
import {
  countTokens,
  type McpToolDefinition,
  providerToolName,
  toMcpTool,
  toProviderTools,
} from '../src/schema/index.js';
import { bfclTool, loadBfcl } from '../test/support/bfcl.js';

type Wrapped = {
  name: string;
  description: string;
  schema: unknown;
  /** For MCP: the title and annotations the tool carries. */
  extras?: { readonly title?: string; readonly annotations?: unknown };
};

function wrap(format: ProviderFormat, tool: Wrapped): unknown {
  switch (format) {
    case 'openai':
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.schema },
      };
    case 'anthropic':
      return { name: tool.name, description: tool.description, input_schema: tool.schema };
    case 'gemini':
      return { name: tool.name, description: tool.description, parameters: tool.schema };
    case 'mcp': {
      const { title, annotations } = tool.extras ?? {};
      return {
        name: tool.name,
        ...(title ? { title } : {}),
        description: tool.description,
        inputSchema: tool.schema,
        ...(annotations ? { annotations } : {}),
      };
    }
    default:
      throw new Error(`not benchmarked: ${format}`);
  }
}

function pickTools(): ToolContract[] {
  const picked: ToolContract[] = [...workspace.schemas()];
  const seen = new Set(picked.map((contract) => contract.name));
  const candidates = loadBfcl().flatMap((entry) => entry.functions);
  for (let index = 0; picked.length < 20 && index < candidates.length; index += 37) {
    const fn = candidates[index]!;
    if (seen.has(fn.name)) continue;
    try {
      z.fromJSONSchema(fn.parameters as never);
    } catch {
      continue;
    }
    seen.add(fn.name);
    picked.push(bfclTool(fn).contract);
  }
  return picked;
}

/** The title and annotations our MCP output gives each contract, which the MCP peers are given too. */
function mcpExtras(contract: ToolContract): Pick<McpToolDefinition, 'title' | 'annotations'> {
  const { title, annotations } = toMcpTool(contract, { returns: 'omit' });
  return { ...(title ? { title } : {}), ...(annotations ? { annotations } : {}) };
}

/** The MCP SDK's tools/list entries, by name, for the contracts registered with their title and annotations. */
async function mcpSdkTools(contracts: readonly ToolContract[]): Promise<Map<string, Tool>> {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  // The SDK's types want a zod shape it infers from; the schema here is read at run time.
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: { title?: string; description: string; inputSchema: unknown; annotations?: unknown },
    callback: () => Promise<{ content: never[] }>,
  ) => void;
  for (const contract of contracts) {
    register(
      providerToolName(contract.name, 'openai'),
      {
        ...mcpExtras(contract),
        description: contract.description,
        inputSchema: z.fromJSONSchema(contract.parameters as never),
      },
      async () => ({ content: [] }),
    );
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  await server.close();
  return new Map(tools.map((tool) => [tool.name, tool]));
}

function descriptionsOf(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const item of schema) descriptionsOf(item, out);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'description' && typeof value === 'string') out.push(value);
      else if (key !== 'enum' && key !== 'const' && key !== 'default') descriptionsOf(value, out);
    }
  }
  return out;
}

const CONSTRAINTS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'const',
  'default',
];

function constraintsOf(schema: unknown, path: string, out: { keyword: string; path: string }[] = []) {
  if (Array.isArray(schema))
    for (const [index, item] of schema.entries()) constraintsOf(item, `${path}[${index}]`, out);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (CONSTRAINTS.includes(key)) out.push({ keyword: key, path: `${path}.${key}` });
      if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
        constraintsOf(
          value,
          /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
          out,
        );
      }
    }
  }
  return out;
}

/** Descriptions and constraints of the contracts our output no longer carries (neither kept nor reported). */
function losses(contracts: readonly ToolContract[], format: ProviderFormat, options: SchemaOptions) {
  const { tools, diagnostics } = toProviderTools(contracts, format, options);
  let descriptions = 0;
  let constraints = 0;
  let lost = 0;
  contracts.forEach((contract, index) => {
    const text = JSON.stringify(tools[index]);
    for (const description of [contract.description, ...descriptionsOf(contract.parameters)]) {
      descriptions++;
      if (!text.includes(JSON.stringify(description).slice(1, -1))) lost++;
    }
    for (const { keyword, path } of constraintsOf(contract.parameters, '$.parameters')) {
      constraints++;
      const reported = diagnostics.some((entry) => entry.tool === contract.name && entry.path === path);
      if (!reported && !text.includes(`"${keyword === 'const' ? 'enum' : keyword}":`)) lost++;
    }
  });
  return { descriptions, constraints, lost };
}

async function tokenTable(contracts: readonly ToolContract[]): Promise<void> {
  const mcp = await mcpSdkTools(contracts);
  const peers: {
    name: string;
    schema: (contract: ToolContract) => Promise<unknown>;
    /** The peer's own MCP Tool object, when it makes one. */
    mcpTool?: (contract: ToolContract) => unknown;
  }[] = [
    {
      name: 'zod toJSONSchema',
      schema: async (contract) => z.toJSONSchema(z.fromJSONSchema(contract.parameters as never)),
    },
    {
      name: 'AI SDK asSchema',
      schema: async (contract) =>
        asSchema(zodSchema(z.fromJSONSchema(contract.parameters as never) as never)).jsonSchema,
    },
    {
      name: 'MCP SDK tools/list',
      schema: async (contract) => mcp.get(providerToolName(contract.name, 'openai'))?.inputSchema,
      mcpTool: (contract) => mcp.get(providerToolName(contract.name, 'openai')),
    },
  ];
  const formats: { format: ProviderFormat; options: SchemaOptions; label: string }[] = [
    { format: 'openai', options: { returns: 'omit' }, label: 'openai' },
    { format: 'openai', options: { returns: 'omit', strict: true }, label: 'openai strict' },
    { format: 'anthropic', options: { returns: 'omit', examples: false }, label: 'anthropic' },
    { format: 'gemini', options: { returns: 'omit' }, label: 'gemini' },
    { format: 'mcp', options: { returns: 'omit' }, label: 'mcp' },
  ];
  process.stdout.write(
    `\nTokens per tool (o200k_base), ${contracts.length} tools, return contracts left out on every side\n`,
  );
  process.stdout.write(
    `${'format'.padEnd(14)}${['toolpact', ...peers.map((peer) => peer.name)].map((name) => name.padStart(20)).join('')}  ratio to leanest peer   lost\n`,
  );
  for (const { format, options, label } of formats) {
    const ours = toProviderTools(contracts, format, options).tools;
    const ourTokens = countTokens(JSON.stringify(ours)) / contracts.length;
    const peerTokens: number[] = [];
    for (const peer of peers) {
      const wrapped: unknown[] = [];
      for (const contract of contracts) {
        if (format === 'mcp' && peer.mcpTool) {
          wrapped.push(peer.mcpTool(contract));
          continue;
        }
        wrapped.push(
          wrap(format, {
            name: providerToolName(contract.name, 'openai'),
            description: contract.description,
            schema: await peer.schema(contract),
            extras: mcpExtras(contract),
          }),
        );
      }
      peerTokens.push(countTokens(JSON.stringify(wrapped)) / contracts.length);
    }
    const leanest = Math.min(...peerTokens);
    const loss = losses(contracts, format, options);
    process.stdout.write(
      `${label.padEnd(14)}${[ourTokens, ...peerTokens].map((value) => value.toFixed(1).padStart(20)).join('')}  ${(ourTokens / leanest).toFixed(2).padStart(8)}x              ${loss.lost}/${loss.descriptions + loss.constraints}\n`,
    );
  }
  // Our MCP tools against peers that carry no title and no annotations: what the two add to each tool.
  const ourMcp = countTokens(JSON.stringify(toProviderTools(contracts, 'mcp', { returns: 'omit' }).tools));
  const bare: number[] = [];
  for (const peer of peers) {
    const wrapped: unknown[] = [];
    for (const contract of contracts) {
      wrapped.push(
        wrap('mcp', {
          name: providerToolName(contract.name, 'openai'),
          description: contract.description,
          schema: await peer.schema(contract),
        }),
      );
    }
    bare.push(countTokens(JSON.stringify(wrapped)) / contracts.length);
  }
  const leanestBare = Math.min(...bare);
  process.stdout.write(
    `(mcp against peers without title and annotations: ${(ourMcp / contracts.length).toFixed(1)} against ${leanestBare.toFixed(1)}, ${(ourMcp / contracts.length / leanestBare).toFixed(2)}x)\n`,
  );
  const withReturns =
    countTokens(JSON.stringify(toProviderTools(contracts, 'anthropic').tools)) / contracts.length;
  process.stdout.write(
    `(anthropic with the return contract in the description, as by default: ${withReturns.toFixed(1)} tokens per tool)\n`,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timing(contracts: readonly ToolContract[]): void {
  process.stdout.write(
    '\nregistry.schemas("openai", { strict: true }): first call and cached (100x the tools should cost about 100x)\n',
  );
  process.stdout.write(
    `${'tools'.padStart(7)}${'first ms'.padStart(12)}${'µs/tool'.padStart(10)}${'cached µs'.padStart(12)}${'first vs prev'.padStart(16)}\n`,
  );
  let previous: number | undefined;
  // Warm the adapters up first, so the smallest sizes do not measure the JIT.
  const warm = Array.from({ length: 200 }, (_, index) =>
    createTool({ ...contracts[index % contracts.length]!, name: `warm_${index}` }, { execute: () => null }),
  );
  for (let round = 0; round < 20; round++) new Registry().register(warm).schemas('openai', { strict: true });
  for (const count of [1, 100, 10_000]) {
    const tools = Array.from({ length: count }, (_, index) => {
      const source = contracts[index % contracts.length]!;
      return createTool({ ...source, name: `tool_${index}` }, { execute: () => null });
    });
    const firsts: number[] = [];
    const cached: number[] = [];
    for (let round = 0; round < (count > 1000 ? 3 : 9); round++) {
      const registry = new Registry().register(tools);
      let started = process.hrtime.bigint();
      registry.schemas('openai', { strict: true });
      firsts.push(Number(process.hrtime.bigint() - started) / 1e6);
      started = process.hrtime.bigint();
      registry.schemas('openai', { strict: true });
      cached.push(Number(process.hrtime.bigint() - started) / 1e3);
    }
    const first = median(firsts);
    const perTool = (first * 1000) / count;
    const growth = previous === undefined ? '' : `${(first / previous).toFixed(0)}x`;
    previous = first;
    process.stdout.write(
      `${String(count).padStart(7)}${first.toFixed(2).padStart(12)}${perTool.toFixed(1).padStart(10)}${median(cached).toFixed(2).padStart(12)}${growth.padStart(16)}\n`,
    );
  }
}

export default async function run(): Promise<void> {
  const contracts = pickTools();
  await tokenTable(contracts);
  timing(contracts);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
