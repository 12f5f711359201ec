import type { ToolContract } from '../contract/index.js';
import { anthropicTool } from './anthropic.js';
import { DiagnosticSink } from './diagnostics.js';
import { geminiFunctionDeclaration } from './gemini.js';
import { mcpTool } from './mcp.js';
import { openaiTool } from './openai.js';
import { openaiResponsesTool } from './openai-responses.js';
import { checkResultContent } from './result-content.js';
import { isRecord } from './schema-node.js';
import type { ProviderFormat, ProviderToolMap, ProviderTools, SchemaOptions } from './types.js';

/**
 * The contracts in one provider's wire format, in the order given, with every keyword the adapter
 * could not carry exactly reported as a diagnostic (none is dropped in silence). Pure: the same input
 * gives the same bytes, which keeps provider prompt caches warm.
 *
 * @example
 * const { tools, diagnostics } = toProviderTools(registry.schemas(), 'openai', { strict: true });
 * if (diagnostics.some((d) => d.severity === 'error')) throw new Error(diagnostics[0].message);
 * await openai.chat.completions.create({ model, messages, tools });
 */
export function toProviderTools<F extends ProviderFormat>(
  contracts: readonly ToolContract[],
  format: F,
  options: SchemaOptions = {},
): ProviderTools<F> {
  const sink = new DiagnosticSink(format);
  const tools = contracts.map((contract) => adapt(contract, format, options, sink)) as ProviderToolMap[F][];
  checkToolSet(contracts, format, options, sink);
  return { tools, diagnostics: sink.list };
}

function adapt(
  contract: ToolContract,
  format: ProviderFormat,
  options: SchemaOptions,
  sink: DiagnosticSink,
): unknown {
  const diagnostics = sink.forTool(contract.name);
  checkResultContent(contract, format, diagnostics);
  switch (format) {
    case 'canonical':
      return contract;
    case 'openai':
      return openaiTool(contract, options, diagnostics);
    case 'openai-responses':
      return openaiResponsesTool(contract, options, diagnostics);
    case 'anthropic':
      return anthropicTool(contract, options, diagnostics);
    case 'gemini':
      return geminiFunctionDeclaration(contract, options, diagnostics);
    case 'mcp':
      return mcpTool(contract, options, diagnostics);
    default: {
      const exhaustive: never = format;
      throw new TypeError(`Unknown provider format ${JSON.stringify(exhaustive)}.`);
    }
  }
}

// Limits on a whole request (provider-rules §1.1.1, §1.2.4, §1.3.1).
function checkToolSet(
  contracts: readonly ToolContract[],
  format: ProviderFormat,
  options: SchemaOptions,
  sink: DiagnosticSink,
): void {
  const count = contracts.length;
  const over = (limit: number, what: string) => {
    if (count > limit)
      sink.report('*', '$', 'limit_exceeded', `The set has ${count} tools, more than the ${limit} ${what}`);
  };
  switch (format) {
    case 'openai':
    case 'openai-responses':
      over(128, 'functions OpenAI accepts in one request');
      return;
    case 'gemini':
      over(512, 'function declarations Gemini accepts in one request');
      return;
    case 'anthropic': {
      if (!options.strict) return;
      over(20, 'strict tools Anthropic accepts in one request');
      let optional = 0;
      let unions = 0;
      for (const contract of contracts) {
        const counted = countParameters(contract.parameters, 0);
        optional += counted.optional;
        unions += counted.unions;
      }
      if (optional > 24)
        sink.report(
          '*',
          '$',
          'limit_exceeded',
          `The strict tools have ${optional} optional parameters in total, more than the 24 Anthropic accepts`,
        );
      if (unions > 16)
        sink.report(
          '*',
          '$',
          'limit_exceeded',
          `The strict tools have ${unions} parameters with union types, more than the 16 Anthropic accepts`,
        );
      return;
    }
    case 'mcp':
    case 'canonical':
      return;
    default: {
      const exhaustive: never = format;
      throw new TypeError(`Unknown provider format ${JSON.stringify(exhaustive)}.`);
    }
  }
}

function countParameters(schema: unknown, depth: number): { optional: number; unions: number } {
  const total = { optional: 0, unions: 0 };
  if (depth > 32 || !isRecord(schema)) return total;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, child] of Object.entries(properties)) {
    if (!required.has(name)) total.optional++;
    if (
      isRecord(child) &&
      (Array.isArray(child.anyOf) || Array.isArray(child.oneOf) || Array.isArray(child.type))
    )
      total.unions++;
    const inner = countParameters(child, depth + 1);
    total.optional += inner.optional;
    total.unions += inner.unions;
  }
  if (isRecord(schema.items)) {
    const inner = countParameters(schema.items, depth + 1);
    total.optional += inner.optional;
    total.unions += inner.unions;
  }
  return total;
}
