/**
 * The neutral contract of one tool: everything a model ever sees of it, as plain serializable data.
 * Every front end (schema-first, JSON Schema, type-first) produces it; every provider adapter reads it.
 */
import type { ContentType } from '../content/blocks.js';

/** A JSON Schema (draft 2020-12 subset) as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The five tool categories of the risk taxonomy. */
export type ToolCategory = 'read' | 'search' | 'write' | 'execute' | 'delegate';

/** Risk level carried by a category. */
export type RiskLevel = 'low' | 'medium' | 'high';

/** What the permission gate does by default for a category. */
export type Permission = 'allow' | 'ask' | 'deny';

/**
 * Side effects of a tool. The meanings are those of the MCP tool annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
 */
export interface ToolEffects {
  /** The tool changes nothing in its environment. */
  readonly readOnly: boolean;
  /** A change the tool makes may destroy or overwrite data (meaningful only when not read-only). */
  readonly destructive: boolean;
  /** Calling it again with the same arguments has no further effect. */
  readonly idempotent: boolean;
  /** The tool reaches entities outside a closed domain (network, other agents, the shell). */
  readonly openWorld: boolean;
}

/** The return contract: what a successful call's `result` looks like. */
export interface ReturnContract {
  readonly description?: string;
  readonly schema?: JsonSchema;
  /**
   * The kinds of content blocks the tool answers with (a `toolResult`), so the provider adapters and
   * lint can say where a provider's tool results cannot hold them.
   */
  readonly content?: readonly ContentType[];
}

/** One worked example of a call, for documentation and for providers that accept input examples. */
export interface ToolExample {
  readonly description?: string;
  readonly arguments: { readonly [name: string]: unknown };
}

/**
 * A tool contract: plain data, serializable with `JSON.stringify`, the same whatever produced it.
 *
 * @example
 * const contract: ToolContract = {
 *   name: 'read_file',
 *   description: 'Read the full text of a UTF-8 file, path relative to the workspace root.',
 *   parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   category: 'read',
 *   effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
 * };
 */
export interface ToolContract {
  /** `^[A-Za-z0-9_-]{1,64}$`, unique in a registry. */
  readonly name: string;
  /** A short human-readable title (MCP `title`). */
  readonly title?: string;
  /** The full text the model reads: what it does, when to use it and when not, side effects, edges. */
  readonly description: string;
  /** A JSON Schema whose root is `type: "object"`: the arguments the model fills. */
  readonly parameters: JsonSchema;
  /** What a successful result looks like. */
  readonly returns?: ReturnContract;
  readonly category: ToolCategory;
  readonly effects: ToolEffects;
  readonly examples?: readonly ToolExample[];
}
