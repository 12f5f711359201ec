import { definePrompt, type Prompt, type PromptArgumentDefinition } from '../define/define-prompt.js';
import type { PromptMessage } from '../define/mcp-content.js';
import { mcpContextOf } from '../mcp/request-context.js';
import type { PlannedItem } from './plan-catalog.js';
import {
  completers,
  type ServedCatalogContext,
  upstreamOf,
  WITHHELD_DESCRIPTION,
  withheldError,
} from './served-resource.js';

/**
 * The registry prompt for a planned prompt: listed under its served name with the server's text and
 * arguments, got and completed on the server as it is at the time, its messages passed through as
 * the server sent them. A withheld one is a stand-in with neutral text whose every get is refused.
 *
 * @example
 * registry.registerPrompt(servedPrompt(planned, context));
 */
export function servedPrompt(planned: PlannedItem<'prompts'>, context: ServedCatalogContext): Prompt {
  const { server, item } = planned;
  const meta = { source: `mcp:${server}`, server, gateway: true, remoteName: planned.key };
  if (planned.withheld) {
    const withheld = planned.withheld;
    return definePrompt({
      name: planned.name,
      description: WITHHELD_DESCRIPTION,
      meta: { ...meta, withheld: true, withheldItem: withheld, unlisted: true },
      get: () => {
        throw withheldError(withheld);
      },
    });
  }
  const names = (item.arguments ?? []).map((argument) => argument.name);
  const complete = completers({ variables: names }, (name, value, others, { signal, state }) =>
    upstreamOf(context, server, state).complete(
      {
        ref: { type: 'ref/prompt', name: planned.key },
        argument: { name, value },
        context: { arguments: others },
      },
      signal,
    ),
  );
  const args: Record<string, PromptArgumentDefinition> = Object.create(null);
  for (const argument of item.arguments ?? []) {
    args[argument.name] = {
      ...(typeof argument.description === 'string' ? { description: argument.description } : {}),
      ...(argument.required === true ? { required: true } : {}),
      ...(complete[argument.name] ? { complete: complete[argument.name] } : {}),
    };
  }
  return definePrompt({
    name: planned.name,
    ...(typeof item.title === 'string' ? { title: item.title } : {}),
    description:
      item.description?.trim() ||
      `${item.title ?? item.name} (the MCP server "${server}" gives no description).`,
    arguments: args,
    meta,
    get: async (values, readContext) => {
      const result = await upstreamOf(context, server, readContext.state).getPrompt(
        planned.key,
        { ...values },
        readContext.signal,
        mcpContextOf(readContext.state),
      );
      return {
        ...(result.description === undefined ? {} : { description: result.description }),
        messages: result.messages as readonly PromptMessage[],
        ...(result._meta ? { _meta: result._meta } : {}),
      };
    },
  });
}
