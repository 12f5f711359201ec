import type { ToolContract } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { createTool } from '../define/create-tool.js';
import { brandedContextOf } from '../dispatch/context-brand.js';
import type { FailureEnvelope } from '../dispatch/envelope.js';
import { invalidArgumentsFailure } from '../dispatch/errors.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { providerToolName } from '../schema/names.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import type { AnthropicTool, ProviderFormat, ProviderToolMap, SchemaOptions } from '../schema/types.js';
import { closestNames } from '../util/closest.js';
import type { ToolIndexOptions } from './create-tool-index.js';
import { lexicalRetriever, type Retriever } from './retriever.js';
import { describeParameters, purposeOf } from './summary.js';

/** The name of the meta-tool {@link withToolSearch} registers. */
export const SEARCH_TOOL_NAME = 'search_tools';

/** The name of the tool a stateless client calls a found tool through ({@link ToolSearch.stateless}). */
export const CALL_TOOL_NAME = 'call_tool';

/** Options of {@link withToolSearch}. */
export interface WithToolSearchOptions {
  /** Tools sent on every request whatever was searched (they must be registered). */
  readonly alwaysLoaded?: readonly string[];
  /** Tools one search returns and loads, at most (default 5; the model may ask for up to 20). */
  readonly k?: number;
  /** Searched tools kept loaded at once; past it, the least recently used go first (default 20). */
  readonly maxLoaded?: number;
  /** What ranks the tools (default: the lexical index, with `index` as its options). */
  readonly retriever?: Retriever;
  /** Options of the default lexical index. */
  readonly index?: ToolIndexOptions;
  /**
   * Every caller is stateless, with no list of its own to load tools into (MCP over stateless HTTP,
   * `serve --search --stateless`): a search loads nothing and answers each found tool's description and
   * full input schema, to be called through `call_tool` ({@link ToolSearch.stateless}). A call over
   * MCP revision 2026-07-28 is answered that way whatever this says. Default false.
   */
  readonly stateless?: boolean;
}

/** Where a call goes: the tool it runs and its arguments, or the failure of a malformed `call_tool`. */
export type CallRoute =
  | { readonly name: string; readonly arguments: unknown }
  | { readonly failure: FailureEnvelope };

/**
 * Tool search for a client whose tool list cannot change per client (MCP revision 2026-07-28, stateless
 * HTTP): a fixed list, and `call_tool` to run what a search found.
 */
export interface StatelessToolSearch {
  /** The contract of `call_tool`. It is not registered: a call of it is a call of the tool it names. */
  readonly callTool: ToolContract;
  /** The fixed list: the always-loaded tools, `search_tools` (described for this use), `call_tool`. */
  schemas(): readonly ToolContract[];
  /** Calls `listener` when that list changes: when the registry does, never on a search. */
  onChange(listener: () => void): () => void;
  /**
   * The tool a call runs: a `call_tool` call runs the tool it names with the arguments it carries (so
   * the gate, the approvals, the audit and the telemetry see that tool); any other call runs as named.
   * A `call_tool` call whose own arguments are malformed is an `invalid_arguments` failure of `call_tool`.
   */
  route(name: string, args: unknown): CallRoute;
}

/** The server tool Anthropic's own tool search uses ({@link ToolSearch.anthropicNative}). */
export type AnthropicToolSearchTool =
  | { readonly type: 'tool_search_tool_bm25_20251119'; readonly name: 'tool_search_tool_bm25' }
  | { readonly type: 'tool_search_tool_regex_20251119'; readonly name: 'tool_search_tool_regex' };

/** What {@link withToolSearch} gives: the registry that runs every call, and the set to send. */
export interface ToolSearch {
  /** The registry every call goes through; it now holds `search_tools` too. */
  readonly registry: Registry;
  /** The `search_tools` tool. */
  readonly tool: AnyTool;
  /**
   * Names of the tools to send on the next request: always-loaded ones, `search_tools`, and what searches
   * loaded. With a format, the names as that provider is sent them (a name it refuses, such as
   * `math.factorial`, aliased as `schemas(format)` and `toAiSdkTools` alias it).
   */
  activeTools(format?: ProviderFormat): readonly string[];
  /** The contracts of the active set (with a format, in that provider's shape). */
  schemas(): readonly ToolContract[];
  schemas<F extends ProviderFormat>(format: F, options?: SchemaOptions): readonly ProviderToolMap[F][];
  /**
   * Anthropic's native tool search instead of `search_tools`: Anthropic's search server tool, then every
   * tool, the always-loaded ones plain and the rest with `defer_loading: true`.
   */
  anthropicNative(
    options?: SchemaOptions & { readonly variant?: 'bm25' | 'regex' },
  ): (AnthropicTool | AnthropicToolSearchTool)[];
  /** Loads tools by name (as a search would), most recent last; answers the names now loaded. */
  load(names: readonly string[]): readonly string[];
  /** Marks a loaded tool as just used, so it is evicted last (call it when the model calls a tool). */
  touch(name: string): void;
  /** Unloads every searched tool. */
  reset(): void;
  /** Calls `listener` whenever the active set changes; returns a function that unsubscribes. */
  onChange(listener: () => void): () => void;
  /** Stops following the registry's changes. */
  close(): void;
  /** The same search for stateless clients: a fixed list with `call_tool` (`serve --search` on MCP 2026-07-28). */
  readonly stateless: StatelessToolSearch;
}

const DEFAULT_K = 5;
const MAX_K = 20;
const DEFAULT_MAX_LOADED = 20;
const MAX_QUERY_CHARS = 1_000;

/**
 * Progressive disclosure: the model is shown the always-loaded tools and a `search_tools` tool; what
 * it searches for is loaded and shown from the next request on, up to `maxLoaded`, least recently used
 * out first. Loading decides only what the model is shown: every call still goes through the registry,
 * which reaches every registered tool behind its gate.
 *
 * @example
 * const search = withToolSearch(registry, { alwaysLoaded: ['read_file'], maxLoaded: 10 });
 * const tools = search.schemas('openai'); // read_file, search_tools, and whatever was found so far
 * const active = search.activeTools('openai'); // the same names, as the ToolSet of toAiSdkTools keys them
 * const text = await search.registry.dispatch(call.name, call.arguments);
 */
export function withToolSearch(registry: Registry, options: WithToolSearchOptions = {}): ToolSearch {
  const k = whole('k', options.k ?? DEFAULT_K, 1, MAX_K);
  const maxLoaded = whole('maxLoaded', options.maxLoaded ?? DEFAULT_MAX_LOADED, 1, Number.MAX_SAFE_INTEGER);
  const alwaysLoaded = new Set(options.alwaysLoaded ?? []);
  for (const name of alwaysLoaded) {
    if (!registry.has(name)) {
      const near = closestNames(
        name,
        registry.list().map((tool) => tool.contract.name),
      );
      throw new ToolDefinitionError(
        'invalid_option',
        `alwaysLoaded names "${name}", which is not registered.${near.length > 0 ? ` Did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : ''}`,
        name,
      );
    }
  }
  const retriever = options.retriever ?? lexicalRetriever(options.index);
  const everyCallerStateless = options.stateless === true;
  /** Searched tools, least recently used first. */
  const loaded = new Set<string>();
  const listeners = new Set<() => void>();
  let indexed: Promise<void> = Promise.resolve();
  let active: readonly string[] | undefined;

  const tool = createTool<{ query: string; k?: number }>(
    {
      name: SEARCH_TOOL_NAME,
      title: 'Search tools',
      description: SEARCH_TOOL_DESCRIPTION,
      category: 'search',
      parameters: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_QUERY_CHARS,
            description:
              'What you want to do, in plain words, e.g. "convert a currency amount" or "查询天气". Name the task, not a tool name you guess.',
          },
          k: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_K,
            description: `How many tools to return, from 1 to ${MAX_K} (default ${k}).`,
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
      returns: {
        description:
          'The tools found, best first, each with its purpose and parameters; they are loaded for your next step.',
        schema: { type: 'object' },
      },
      effects: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
    },
    {
      execute: (args, { state }) =>
        runSearch(args.query, args.k ?? k, everyCallerStateless || isModernMcpCall(state), state),
    },
  );
  registry.register(tool);

  async function runSearch(query: string, count: number, stateless: boolean, state: unknown) {
    await indexed;
    // A caller is never shown a tool it may not see (the registry's `visibleTo`): the search asks for
    // more when the policy hides some, so that hidden tools do not crowd out the ones it may call.
    const perCaller = registry.listedPerCaller;
    const hits = await retriever.search(query, perCaller ? Math.min(count * 4, MAX_K * 4) : count);
    const found = hits
      .map((hit) => ({ hit, tool: registry.get(hit.name) }))
      .filter(
        (entry): entry is { hit: (typeof hits)[number]; tool: AnyTool } =>
          entry.tool !== undefined &&
          entry.hit.name !== SEARCH_TOOL_NAME &&
          (!perCaller || registry.visible(entry.hit.name, state)),
      )
      .slice(0, count);
    // A stateless caller has no list of its own: loading would change every other client's list.
    if (!stateless) load(found.map((entry) => entry.hit.name));
    if (found.length === 0) {
      return {
        tools: [],
        message:
          'No tool matched. Describe the task in other words (what should happen, to what), or with fewer words.',
      };
    }
    if (stateless) {
      return {
        tools: found.map(({ hit, tool: each }) => ({
          name: hit.name,
          description: each.contract.description,
          inputSchema: each.contract.parameters,
        })),
        message: `Call one through ${CALL_TOOL_NAME}: {"name": "<its name>", "arguments": {<an object matching its inputSchema>}}.`,
      };
    }
    return {
      tools: found.map(({ hit, tool: each }) => ({
        name: hit.name,
        purpose: purposeOf(each.contract.description),
        parameters: describeParameters(each.contract.parameters),
      })),
      message: 'These tools are now loaded: call them by name from your next step on.',
    };
  }

  function changed(): void {
    active = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not break a search.
      }
    }
  }

  function load(names: readonly string[]): readonly string[] {
    const before = activeTools().join('\u0000');
    for (const name of names) {
      if (!registry.has(name) || name === SEARCH_TOOL_NAME || alwaysLoaded.has(name)) continue;
      loaded.delete(name);
      loaded.add(name);
    }
    for (const name of loaded) {
      if (loaded.size <= maxLoaded) break;
      loaded.delete(name);
    }
    active = undefined;
    if (activeTools().join('\u0000') !== before) changed();
    return [...loaded];
  }

  function activeTools(): readonly string[] {
    if (!active) {
      const shown = new Set([...alwaysLoaded, SEARCH_TOOL_NAME, ...loaded]);
      active = Object.freeze(
        registry
          .list()
          .map((each) => each.contract.name)
          .filter((name) => shown.has(name)),
      );
    }
    return active;
  }

  function activeContracts(): readonly ToolContract[] {
    const names = new Set(activeTools());
    return registry.schemas().filter((contract) => names.has(contract.name));
  }

  function reindex(): void {
    const contracts = registry.schemas().filter((contract) => contract.name !== SEARCH_TOOL_NAME);
    indexed = indexed.then(
      () => retriever.index(contracts),
      () => retriever.index(contracts),
    );
    indexed.catch(() => {});
  }
  reindex();
  const stateless = statelessSearch(registry, tool.contract, alwaysLoaded);
  const unsubscribe = registry.onChange(() => {
    for (const name of loaded) if (!registry.has(name)) loaded.delete(name);
    reindex();
    changed();
    stateless.changed();
  });

  function schemas(): readonly ToolContract[];
  function schemas<F extends ProviderFormat>(
    format: F,
    options?: SchemaOptions,
  ): readonly ProviderToolMap[F][];
  function schemas(format?: ProviderFormat, schemaOptions?: SchemaOptions): readonly unknown[] {
    const contracts = activeContracts();
    return format === undefined ? contracts : toProviderTools(contracts, format, schemaOptions).tools;
  }

  return {
    registry,
    tool,
    activeTools: (format) =>
      format === undefined ? activeTools() : activeTools().map((name) => providerToolName(name, format)),
    schemas,
    anthropicNative(nativeOptions = {}) {
      const { variant = 'bm25', ...schemaOptions } = nativeOptions;
      const contracts = registry.schemas().filter((contract) => contract.name !== SEARCH_TOOL_NAME);
      const deferred = contracts
        .filter((contract) => !alwaysLoaded.has(contract.name))
        .map((contract) => contract.name);
      const searchTool: AnthropicToolSearchTool =
        variant === 'regex'
          ? { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }
          : { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
      return [
        searchTool,
        ...toProviderTools(contracts, 'anthropic', { ...schemaOptions, deferLoading: deferred }).tools,
      ];
    },
    load,
    touch(name) {
      if (loaded.has(name)) {
        loaded.delete(name);
        loaded.add(name);
      }
    },
    reset() {
      if (loaded.size === 0) return;
      loaded.clear();
      changed();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      unsubscribe();
    },
    stateless: stateless.view,
  };
}

// A revision 2026-07-28 request has no list of its own a search could load into.
function isModernMcpCall(state: unknown): boolean {
  return brandedContextOf<{ readonly era?: unknown }>(state)?.era === 'modern';
}

/** The stateless view of one `withToolSearch`: its fixed list, and `call_tool`'s routing. */
function statelessSearch(
  registry: Registry,
  searchContract: ToolContract,
  alwaysLoaded: ReadonlySet<string>,
) {
  const listeners = new Set<() => void>();
  const search: ToolContract = Object.freeze({
    ...searchContract,
    description: STATELESS_SEARCH_DESCRIPTION,
    returns: {
      description: `The tools found, best first, each with its description and full input schema; call one through ${CALL_TOOL_NAME}.`,
      schema: { type: 'object' },
    },
  });
  // call_tool's own validator: one compiled schema for every search.
  const checkCall = CALL_TOOL.validate;
  let list: readonly ToolContract[] | undefined;
  const view: StatelessToolSearch = {
    callTool: CALL_TOOL.contract,
    schemas() {
      list ??= Object.freeze([
        ...registry.schemas().filter((contract) => alwaysLoaded.has(contract.name)),
        search,
        CALL_TOOL.contract,
      ]);
      return list;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    route(name, args) {
      if (name !== CALL_TOOL_NAME) return { name, arguments: args };
      const checked = checkCall(args ?? {}) as Awaited<ReturnType<typeof checkCall>>;
      if (!checked.ok) return { failure: invalidArgumentsFailure(CALL_TOOL_NAME, checked.issues) };
      return { name: checked.value.name, arguments: checked.value.arguments ?? {} };
    },
  };
  return {
    view,
    changed() {
      list = undefined;
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // A listener's failure must not break the registry's change.
        }
      }
    },
  };
}

// Never registered, never run: the MCP server routes a call of it to the tool it names.
const CALL_TOOL = createTool<{ name: string; arguments?: Record<string, unknown> }>(
  {
    name: CALL_TOOL_NAME,
    title: 'Call a found tool',
    description: [
      `Calls a tool that ${SEARCH_TOOL_NAME} found, by its exact name, with arguments that match the input schema the search gave for it.`,
      'Use it for every tool that is not in your tool list; call listed tools directly.',
      'The call is checked, approved and run as that tool would be, and answers what that tool answers; wrong arguments come back with the issues to fix.',
      'Repeating a call repeats its effect, unless the named tool is idempotent.',
      `Do not guess names: search with ${SEARCH_TOOL_NAME} first.`,
    ].join(' '),
    category: 'execute',
    parameters: {
      type: 'object',
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: `The exact name of a tool ${SEARCH_TOOL_NAME} returned, e.g. "write_file".`,
        },
        arguments: {
          type: 'object',
          description: 'The arguments of that tool, matching its input schema ({} when it takes none).',
        },
      },
      required: ['name'],
      additionalProperties: false,
    },
    // Hosts judge call_tool by its own hints, and it can reach any tool: the worst case.
    effects: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  },
  {
    execute: () => {
      throw new Error(
        `${CALL_TOOL_NAME} is routed by the MCP server to the tool it names; it never runs itself.`,
      );
    },
  },
);

const STATELESS_SEARCH_DESCRIPTION = [
  `Finds the tools that can do a task among all the tools available, and gives each one's description and input schema; ${CALL_TOOL_NAME} runs the one chosen, by its name.`,
  'Use it when none of the tools you can see fits the task; do not use it for a tool you can already see, and do not guess tool names instead.',
  'The query is the task in plain words, in English or Chinese; k is how many tools to return.',
  'It changes nothing: your tool list stays as it is.',
  'If nothing fits, search again with other words rather than calling a tool that does not match.',
].join(' ');

function whole(option: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ToolDefinitionError(
      'invalid_option',
      `${option} is ${String(value)}; give a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}.`,
    );
  }
  return value;
}

const SEARCH_TOOL_DESCRIPTION = [
  'Finds the tools that can do a task among all the tools available, and loads them so you can call them.',
  'Use it when none of the tools you can see fits the task; do not use it for a tool you can already see, and do not guess tool names instead.',
  'The query is the task in plain words, in English or Chinese; k is how many tools to return.',
  'It changes nothing but which tools you see: each tool found is loaded from your next step on, and the least recently used loaded tools are unloaded when too many are loaded.',
  'If nothing fits, search again with other words rather than calling a tool that does not match.',
].join(' ');
