import type { ToolContract } from './tool-contract.js';
import type { ArgumentValidator, ResultValidator } from './validation.js';

/** The brand that marks a value as a toolpact tool (survives duplicate copies of the package). */
export const TOOL_BRAND = Symbol.for('toolpact.tool');

/** What a tool's `execute` receives besides its arguments. */
export interface ToolExecuteContext {
  /** Aborted when the caller cancels or the call times out; pass it on to fetch, child processes, … */
  readonly signal: AbortSignal;
  /** The tool's own contract. */
  readonly tool: ToolContract;
  /** The provider's call id, when the caller passed one. */
  readonly callId: string | undefined;
  /** Whatever the caller passed as `state` to `dispatch`/`call` (a session, a user, a workspace). */
  readonly state: unknown;
  /**
   * The `Registry` running this call; a delegating tool derives its sub-registry from it (`subset`).
   * (Its type is filled in by the registry's module, see {@link ToolContextTypes}.)
   */
  readonly registry?: ToolContextTypes extends { readonly registry: infer R } ? R : unknown;
}

/**
 * Types of {@link ToolExecuteContext} that the modules owning them add by declaration merging, so a
 * tool's definition does not import the registry that runs it (the registry imports tools). The
 * registry's module adds `registry: Registry`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging.
export interface ToolContextTypes {}

/** Extra facts about a tool that are not part of what the model sees. */
export interface ToolMeta {
  /** Where the tool comes from: `local` (default) or e.g. `mcp:<server>` for imported tools. */
  readonly source?: string;
  /** Lint rules switched off for this tool, by rule name. */
  readonly lint?: { readonly disable?: readonly string[] };
  /**
   * How the tool's questions to its MCP client (`mcp.elicit/sample/listRoots`) travel on revision
   * 2026-07-28, where each question ends the request with an input-required result and the client
   * retries with the answer. `replay` (default): the retry runs the tool again from the start, and
   * the answered questions resolve at once (any server instance can take it). `held`: the tool runs
   * once and waits for its answers in the process that started it, which the retry must reach; for
   * a tool that must not run twice, such as an imported MCP tool (another server runs the call).
   */
  readonly inputRounds?: 'replay' | 'held';
  readonly [key: string]: unknown;
}

/**
 * A tool: its contract (plain data) plus what it takes to run it. Made by `defineTool` or another
 * front end, enrolled in a `Registry`.
 */
export interface Tool<Args = unknown, Result = unknown> {
  readonly [TOOL_BRAND]: true;
  readonly contract: ToolContract;
  /** Wall-clock limit for one call, in milliseconds. */
  readonly timeoutMs: number | undefined;
  readonly meta: ToolMeta;
  /** Validates the model's arguments; the value it returns is what `execute` receives. */
  readonly validate: ArgumentValidator<Args>;
  /**
   * Checks a result against the `output` schema (a schema library's own validation). Without one, the
   * registry checks results against `contract.returns.schema`, when there is one, as JSON Schema.
   */
  readonly validateResult?: ResultValidator;
  readonly execute: (args: Args, context: ToolExecuteContext) => Result | Promise<Result>;
}

/** Any tool, whatever its argument and result types. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type.
export type AnyTool = Tool<any, unknown>;

/** True when `value` is a toolpact tool. */
export function isTool(value: unknown): value is AnyTool {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as Record<symbol, unknown>)[TOOL_BRAND] === true &&
    typeof (value as AnyTool).execute === 'function'
  );
}
