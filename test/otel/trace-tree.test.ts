import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { instrument } from '../../src/otel/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { telemetry, useAsyncContext } from './support.js';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'observability.md');
const STATUS = ['UNSET', 'OK', 'ERROR'];

/** The spans as an indented tree, children in start order, every attribute shown; no ids or times. */
function renderTree(spans: readonly ReadableSpan[]): string {
  const children = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const visit = (span: ReadableSpan, prefix: string, last: boolean, root: boolean) => {
    const status = span.status.code === 0 ? '' : `  status=${STATUS[span.status.code]}`;
    lines.push(`${prefix}${root ? '' : last ? '└── ' : '├── '}${span.name}${status}`);
    const inner = root ? '' : `${prefix}${last ? '    ' : '│   '}`;
    const kids = [...(children.get(span.spanContext().spanId) ?? [])].sort(
      (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
    );
    for (const [key, value] of Object.entries(span.attributes)) {
      lines.push(`${inner}${kids.length > 0 ? '│' : ' '}     ${key} = ${JSON.stringify(value)}`);
    }
    for (const [index, kid] of kids.entries()) visit(kid, inner, index === kids.length - 1, false);
  };
  for (const root of children.get(undefined) ?? []) visit(root, '', true, true);
  return `${lines.join('\n')}\n`;
}

let restore: () => void;
beforeAll(() => {
  restore = useAsyncContext();
});
afterAll(() => restore());

test('docs/observability.md shows the trace tree the in-memory exporter records for an agent turn', async () => {
  const sdk = telemetry();
  const tools = [
    defineTool({
      name: 'read_file',
      category: 'read',
      description: 'Read a text file of the workspace.',
      input: z.object({ path: z.string().describe('The path, relative to the workspace.') }),
      execute: async ({ path }) =>
        sdk.tracer.startActiveSpan('fs.readFile', async (span) => {
          span.end();
          return `# ${path}`;
        }),
    }),
    defineTool({
      name: 'write_file',
      category: 'write',
      description: 'Write a text file of the workspace.',
      input: z.object({ path: z.string().describe('The path.'), content: z.string().describe('The text.') }),
      execute: () => 'written',
    }),
  ];
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        { id: 'no-env-files', action: 'deny', tool: 'write_file', arguments: { path: { glob: '**/.env' } } },
      ],
    }),
  );
  const registry = new Registry({ ...gate.registryOptions }).register(tools);
  instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
  // The agent loop's spans, as runAgent or the AI SDK start them around the model call.
  await sdk.tracer.startActiveSpan('invoke_agent docs-helper', async (agent) => {
    await sdk.tracer.startActiveSpan('chat gpt-5', async (chat) => {
      await registry.dispatch('read_file', '{"path":"README.md"}', { callId: 'call_1' });
      await registry.dispatch('write_file', '{"path":"app/.env","content":"KEY=1"}', { callId: 'call_2' });
      chat.end();
    });
    agent.end();
  });
  const tree = renderTree(sdk.spans());
  const doc = readFileSync(DOC, 'utf8');
  const shown = /<!-- trace-tree -->\n```text\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(shown).toBe(tree);
  await sdk.shutdown();
});
