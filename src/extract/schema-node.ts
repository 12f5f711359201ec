import type TS from 'typescript';
import type { ArgumentPath } from '../typed/generated-contracts.js';

/**
 * A schema node while it is being built: keys are added as the type and its doc tags are read, and
 * reused types become `$ref`s at the end.
 *
 * @example
 * const node: SchemaNode = { type: 'number' };
 * node.minimum = 1;
 */
export type SchemaNode = { [keyword: string]: unknown };

/**
 * Where a type is being converted: the node to report at, a phrase for messages, the argument path.
 *
 * @example
 * const site: Site = { at: parameter, what: 'parameter "range" of tool "read_file"', path: ['range'] };
 */
export interface Site {
  readonly at: TS.Node;
  /** e.g. `parameter "range" of tool "read_file"`. */
  readonly what: string;
  /** The argument path, or undefined for the return schema (no dates are converted there). */
  readonly path: ArgumentPath | undefined;
  /** The type as written, when known: the checker orders union members its own way, the source does not. */
  readonly typeNode?: TS.TypeNode | undefined;
}
