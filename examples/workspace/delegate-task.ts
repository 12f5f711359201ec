import * as z from 'zod';
import { type AnyTool, defineTool, type JsonValue, ToolError } from '../../src/index.js';
import { createDelegateRegistry, delegatedState } from '../../src/policy/index.js';

/** The most steps one delegated task may take. */
const MAX_STEPS = 20;

/**
 * delegate_task (delegate): hands a task to a sub-agent that may use only the tools it is given,
 * a subset of this agent's, behind this agent's own permission gate. The sub-agent here follows a
 * plan of calls (a model loop plugs in the same way); delegation nests at most `maxDepth` deep.
 */
export function createDelegateTask(maxDepth = 2): AnyTool {
  return defineTool({
    name: 'delegate_task',
    title: 'Delegate task',
    category: 'delegate',
    description: [
      "Hand a task to a sub-agent that carries out a plan of tool calls, using only the tools you list, and return each step's result.",
      'Use it to give a self-contained piece of work its own narrower set of tools. For a single call, call the tool yourself instead.',
      `The sub-agent has no permission you lack: every step passes the same permission gate, and a step the gate refuses comes back as permission_denied. Delegation nests at most ${maxDepth} levels; at most ${MAX_STEPS} steps.`,
      'Its side effects are those of the tools it uses: repeating the call is safe only when every step is, and a plan with write_file writes again. Do not list tools the plan does not need.',
    ].join('\n\n'),
    input: z.object({
      task: z.string().min(1).max(2_000).describe('What the sub-agent is to do, in one or two sentences.'),
      tools: z
        .array(z.string().min(1).max(128))
        .min(1)
        .max(32)
        .describe('Names of the tools the sub-agent may use; each must be one of yours.'),
      steps: z
        .array(
          z.object({
            tool: z.string().min(1).max(128).describe('A tool from "tools".'),
            arguments: z.record(z.string(), z.unknown()).describe('The arguments for that tool.'),
          }),
        )
        .min(1)
        .max(MAX_STEPS)
        .describe('The calls to make, in order; the sub-agent stops at the first that fails.'),
    }),
    returns: 'For each step taken, the tool and its result envelope; and whether every step succeeded.',
    async execute({ task, tools, steps }, context) {
      if (!context.registry) {
        throw new ToolError('delegate_task can only run from a registry.', { type: 'no_registry' });
      }
      const sub = createDelegateRegistry({
        parent: context.registry,
        names: tools,
        state: context.state,
        maxDepth,
      });
      const state = delegatedState(context.state, task);
      const results: { tool: string; envelope: JsonValue }[] = [];
      for (const step of steps) {
        // A tool outside the delegate's subset answers unknown_tool, as for any model.
        const envelope = await sub.call(step.tool, step.arguments, { signal: context.signal, state });
        results.push({ tool: step.tool, envelope: envelope as unknown as JsonValue });
        if (!envelope.ok) break;
      }
      return {
        completed:
          results.length === steps.length && results.every((step) => (step.envelope as { ok: boolean }).ok),
        steps: results,
      };
    },
  });
}
