import { describe, expect, it } from 'vitest';
import { findHiddenInstructions } from '../../src/lint/index.js';
import { type CorpusSplit, loadPoisoningCorpus, measureCorpus } from './poisoning-corpus.js';

// The goal of issue 26 §7: at least 90% of poisoned definitions caught at error level, at most 2% of
// benign definitions flagged at error level, on the part tuned on and on the part held out.
describe.each<CorpusSplit>(['dev', 'held-out'])('the tool-poisoning corpus, %s part', (split) => {
  const corpus = loadPoisoningCorpus(split);
  const measure = measureCorpus(corpus);

  it('holds poisoned and benign definitions from every source', () => {
    expect(measure.poisoned).toBeGreaterThanOrEqual(20);
    expect(measure.benign).toBeGreaterThanOrEqual(2000);
    for (const source of ['seal-tools', 'bfcl'])
      expect(corpus.benign.some((item) => item.source === source)).toBe(true);
    expect(corpus.benign.some((item) => item.id.startsWith('@modelcontextprotocol/server-filesystem#'))).toBe(
      true,
    );
    expect(corpus.benign.some((item) => item.id.startsWith('@playwright/mcp#'))).toBe(true);
    for (const item of [...corpus.poisoned, ...corpus.benign]) {
      expect(item.source, item.id).not.toBe('');
      expect(item.license, item.id).not.toBe('');
    }
  });

  it('catches at least 90% of the poisoned definitions at error level', () => {
    expect(measure.recall, `missed: ${measure.missed.join(', ')}`).toBeGreaterThanOrEqual(0.9);
  });

  it('flags at most 2% of the benign definitions at error level', () => {
    expect(measure.benignErrorRate, `flagged: ${measure.falseErrors.join(', ')}`).toBeLessThanOrEqual(0.02);
  });

  it("marks a span that lies inside the string at the finding's path", () => {
    for (const item of corpus.poisoned) {
      for (const finding of findHiddenInstructions(item.tool)) {
        const value = readPath(item.tool, finding.path);
        expect(typeof value, `${item.id} ${finding.path}`).toBe('string');
        expect((value as string).slice(finding.span.start, finding.span.end)).toBe(finding.span.text);
        expect(finding.span.text.length).toBeGreaterThan(0);
      }
    }
  });
});

/** Follows a JSONPath of the form `$.a.b["c d"].e` through plain data. */
function readPath(root: unknown, path: string): unknown {
  let node = root;
  for (const match of path.slice(1).matchAll(/\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\]/g)) {
    const key = match[1] ?? (JSON.parse(match[2]!) as string);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
