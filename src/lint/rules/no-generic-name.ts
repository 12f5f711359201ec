import { createRule } from '../create-rule.js';

const GENERIC = [
  'process',
  'run',
  'data',
  'helper',
  'do',
  'execute',
  'handle',
  'tool',
  'main',
  'action',
  'call',
  'get',
  'func',
  'function',
  'invoke',
  'perform',
  'task',
  'util',
  'utils',
  'misc',
  'api',
  'request',
  'query',
  'manage',
  'handler',
  'service',
  'operation',
  'command',
  'go',
  'start',
  'work',
  'thing',
  'test',
  'foo',
];

/** Names: a one-word generic name tells the model nothing about when to pick the tool. */
export const noGenericName = createRule({
  name: 'no-generic-name',
  meta: {
    type: 'suggestion',
    description: 'Avoid generic one-word tool names; use verb_noun, such as search_logs.',
    messages: {
      generic:
        'Tool name "{tool}" is a generic word that says nothing about what the tool acts on. Use verb_noun, e.g. "{tool}_<object>" such as "run_tests" or "search_logs".',
    },
    schema: {
      type: 'object',
      properties: {
        names: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        allow: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
      additionalProperties: false,
    },
    defaultOptions: { names: GENERIC as string[], allow: [] as string[] },
  },
  check(context) {
    const generic = new Set(context.options.names.map((name) => name.toLowerCase()));
    const allow = new Set(context.options.allow);
    for (const tool of context.tools) {
      if (allow.has(tool.name) || tool.nameWords.length !== 1) continue;
      if (!generic.has(tool.nameWords[0]!)) continue;
      context.report({ tool, path: '$.name', messageId: 'generic', data: { tool: tool.name } });
    }
  },
});
