import { describe, expect, test } from 'vitest';
import { MCP_CONTEXT } from '../../src/dispatch/context-brand.js';
import type { UpstreamCatalog } from '../../src/gateway/catalog.js';
import type { GatewayServer } from '../../src/gateway/config/index.js';
import { planCatalog } from '../../src/gateway/plan-catalog.js';
import { ServedCatalog } from '../../src/gateway/served-catalog.js';
import type { TeamUpstreams } from '../../src/gateway/team-upstreams.js';
import { Registry } from '../../src/registry/registry.js';
import { RegistryRequestError } from '../../src/registry/request-error.js';

// What the gateway registers for a server's catalog, read through a real registry, with no server
// behind it: each read, get and completion is refused before any connection is used when it must be.

const server: GatewayServer = {
  name: 'linear',
  target: { kind: 'http', url: 'https://mcp.example/linear', headers: {} } as never,
  enabled: true,
  prefix: 'auto',
  alwaysLoaded: false,
  roots: [],
  rootsFrom: 'config',
  rootsAnswer: 'config',
  tools: {},
};

const catalog: UpstreamCatalog = {
  resources: [{ uri: 'linear://issues/open', name: 'open issues', description: 'The open issues.' }],
  templates: [{ uriTemplate: 'linear://issues/{id}', name: 'issue', description: 'One issue, by id.' }],
  prompts: [{ name: 'triage', description: 'Triage an issue.', arguments: [{ name: 'id', required: true }] }],
};

/** A caller the transport authenticated, as an MCP request's state carries it. */
const alice = { [MCP_CONTEXT]: true, principal: { subject: 'alice', issuer: 'https://id.example' } };

function served(team?: TeamUpstreams) {
  const registry = new Registry();
  const plan = planCatalog({
    servers: [server],
    newTools: 'allow',
    lock: { version: 1, servers: {} },
    catalogs: new Map([['linear', catalog]]),
  });
  const failed = new ServedCatalog(registry, { upstream: () => undefined, team }, () => {}).sync(plan);
  expect(failed).toEqual([]);
  return registry;
}

async function refusal(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    // The registry's own refusal, or (a subscription) the server's refusal as the gateway threw it.
    if (error instanceof RegistryRequestError || error instanceof Error) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a team gateway and a server that signs in as each person', () => {
  // A server with a per-person pool: the gateway's own connection to it is its own user's.
  const team = { pool: (name: string) => (name === 'linear' ? {} : undefined) } as unknown as TeamUpstreams;

  test("a signed-in caller's read, get and subscription are refused, never answered with the gateway user's sign-in", async () => {
    const registry = served(team);
    const options = { state: alice };
    for (const request of [
      registry.readResource('linear://issues/open', options),
      registry.readResource('linear://issues/7', options),
      registry.getPrompt('triage', { id: '7' }, options),
      registry.subscribeResource('linear://issues/open', () => {}, options),
    ]) {
      expect(await refusal(request)).toMatch(/signs in as each person/);
    }
    await expect(
      registry.complete(
        { type: 'ref/prompt', name: 'triage' },
        { name: 'id', value: '7' },
        undefined,
        options,
      ),
    ).rejects.toThrow(/signs in as each person/);
  });

  test('a caller without a principal (stdio, or HTTP without auth) is the local user and goes on', async () => {
    const registry = served(team);
    expect(await refusal(registry.readResource('linear://issues/open'))).toMatch(
      /disabled in the gateway's config/,
    );
  });

  test('without a per-person pool, a signed-in caller goes on to the server', async () => {
    const registry = served();
    expect(await refusal(registry.getPrompt('triage', { id: '7' }, { state: alice }))).toMatch(
      /disabled in the gateway's config/,
    );
  });
});
