import type { ToolContract } from '../contract/index.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import { tokenReport } from '../schema/tokens.js';
import { isProviderFormat, type ProviderFormat } from '../schema/types.js';
import type { ProviderDiagnostic, ProviderFacts } from './types.js';

/**
 * Token counts and refusals of a tool set from the schema adapters, each format computed once and only
 * when a rule asks for it. A format the adapters do not know gives nothing (the rule options are
 * checked against the format list before this is reached).
 *
 * @example
 * const facts = providerFacts(registry.schemas());
 * facts.tokens('anthropic').total;
 */
export function providerFacts(contracts: readonly ToolContract[]): ProviderFacts {
  const tokens = new Map<ProviderFormat, ReturnType<ProviderFacts['tokens']>>();
  const diagnostics = new Map<ProviderFormat, readonly ProviderDiagnostic[]>();
  return {
    tokens(format) {
      if (!isProviderFormat(format)) return { perTool: new Map(), total: 0 };
      let report = tokens.get(format);
      if (!report) {
        const { perTool, total, counting } = tokenReport(contracts, format);
        report = { perTool: new Map(perTool.map((entry) => [entry.name, entry.tokens])), total, counting };
        tokens.set(format, report);
      }
      return report;
    },
    diagnostics(format) {
      if (!isProviderFormat(format)) return [];
      let list = diagnostics.get(format);
      if (!list) {
        list = toProviderTools(contracts, format).diagnostics;
        diagnostics.set(format, list);
      }
      return list;
    },
  };
}
