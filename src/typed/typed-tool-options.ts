import type { ToolCategory, ToolEffects } from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import type { GeneratedContracts } from './generated-contracts.js';

/** Options of {@link tool}: the generated contracts, and what the source's types cannot say. */
export interface TypedToolOptions {
  /** The default export of the module `toolpact gen` wrote. */
  readonly contracts: GeneratedContracts;
  /** Overrides `@category` in the doc comment. */
  readonly category?: ToolCategory;
  /** The tool's name; by default the function's or method's own name. */
  readonly name?: string;
  readonly title?: string;
  /** Overrides of the category's default effects. */
  readonly effects?: Partial<ToolEffects>;
  /** Wall-clock limit for one call, in milliseconds. */
  readonly timeoutMs?: number;
  readonly meta?: ToolMeta;
}
