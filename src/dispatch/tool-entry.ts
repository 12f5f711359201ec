import type { ToolContract } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import type { ResultValidation } from './call.js';
import { type ArgumentCheck, argumentCheckOf } from './validate-json-schema.js';
import { jsonSchemaResultValidator, type ResultValidator } from './validate-result.js';

/**
 * A registered tool and what its calls read, fixed at registration: one shape for every tool, so the
 * call path reads the same fields whatever optional keys each tool object has.
 */
export class ToolEntry {
  readonly tool: AnyTool;
  readonly contract: ToolContract;
  readonly name: string;
  readonly validate: AnyTool['validate'];
  /** The validator's check without a result object, when it has one (JSON Schema tools). */
  readonly check: ArgumentCheck | undefined;
  readonly execute: AnyTool['execute'];
  /** The tighter of the tool's own limit and the registry's default. */
  readonly timeoutMs: number | undefined;
  /** True when results are checked: the tool has an output schema and the registry checks them. */
  readonly checksResults: boolean;
  #resultValidator: ResultValidator | null | undefined;

  constructor(tool: AnyTool, defaultTimeoutMs: number | undefined, validateResults: ResultValidation) {
    this.tool = tool;
    this.contract = tool.contract;
    this.name = tool.contract.name;
    this.validate = tool.validate;
    this.check = argumentCheckOf(tool.validate);
    this.execute = tool.execute;
    this.timeoutMs = tighter(tool.timeoutMs, defaultTimeoutMs);
    this.checksResults =
      validateResults !== 'off' &&
      (tool.validateResult !== undefined || tool.contract.returns?.schema !== undefined);
    this.#resultValidator = undefined;
  }

  /** The result check, made on the first result (a JSON Schema is compiled then). */
  resultValidator(): ResultValidator | null {
    if (this.#resultValidator === undefined) {
      const schema = this.contract.returns?.schema;
      this.#resultValidator = this.tool.validateResult ?? (schema ? jsonSchemaResultValidator(schema) : null);
    }
    return this.#resultValidator;
  }
}

/** The tighter of two time limits, where a limit that is not a positive finite number is none. */
export function tighter(a: number | undefined, b: number | undefined): number | undefined {
  if (!usable(a)) return usable(b) ? b : undefined;
  return usable(b) && (b as number) < (a as number) ? b : a;
}

function usable(value: number | undefined): boolean {
  return value !== undefined && Number.isFinite(value) && value > 0;
}
