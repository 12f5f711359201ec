import { describe, expect, it } from 'vitest';
import {
  createRule,
  LintConfigError,
  lint,
  PRESETS,
  RULES,
  resolveLintConfig,
} from '../../src/lint/index.js';
import { tool } from './support.js';

describe('resolveLintConfig', () => {
  it('starts from recommended; strict turns more rules on and raises severities', () => {
    const recommended = resolveLintConfig();
    const strict = resolveLintConfig({ extends: 'strict' });
    expect(recommended.rules.map(({ rule }) => rule.name)).toEqual(Object.keys(PRESETS.recommended).sort());
    expect(strict.rules.length).toBe(Object.keys(RULES).length);
    const severity = (config: typeof strict, name: string) =>
      config.rules.find(({ rule }) => rule.name === name)?.severity;
    expect(severity(recommended, 'parameter-semantics')).toBe('warning');
    expect(severity(strict, 'parameter-semantics')).toBe('error');
  });

  it('applies severities and options over the preset, with defaults filled in', () => {
    const config = resolveLintConfig({
      rules: { 'max-tools': ['warn', { max: 40 }], 'description-usage': 'off', 'no-generic-name': 'info' },
    });
    const maxTools = config.rules.find(({ rule }) => rule.name === 'max-tools')!;
    expect(maxTools.severity).toBe('warning');
    expect(maxTools.options).toEqual({ max: 40, providerLimits: { OpenAI: 128, Gemini: 512 } });
    expect(config.rules.some(({ rule }) => rule.name === 'description-usage')).toBe(false);
    expect(config.rules.find(({ rule }) => rule.name === 'no-generic-name')!.severity).toBe('info');
  });

  it.each([
    [{ rules: { 'max-tool': 'warn' } }, /no lint rule "max-tool"; did you mean "max-tools"/],
    [
      { rules: { 'max-tools': 'loud' } },
      /rule "max-tools" must be "off", "info", "warn", "warning" or "error"/,
    ],
    [{ rules: { 'max-tools': ['warn', { maximum: 3 }] } }, /unknown option "maximum"/],
    [{ rules: { 'max-tools': ['warn', { max: -1 }] } }, /max must be >= 1/],
    [{ extends: 'lax' }, /"extends" must be one of "recommended", "strict", received "lax"/],
    [{ rule: {} }, /unknown key "rule"/],
    [[], /must be an object/],
  ])('refuses %j with a message that names the mistake', (config, message) => {
    expect(() => resolveLintConfig(config)).toThrow(LintConfigError);
    expect(() => resolveLintConfig(config)).toThrow(message);
  });

  it('names the configuration file in its messages', () => {
    expect(() => resolveLintConfig({ rules: { nope: 'error' } }, { source: 'toolpact.config.json' })).toThrow(
      /^toolpact\.config\.json \(lint\): there is no lint rule "nope"/,
    );
  });
});

describe('lint', () => {
  it('drops findings of a rule the tool disables in meta.lint.disable, and only for that tool', () => {
    const tools = [
      tool('read_file', 'Reads a file.', { disable: ['description-purpose'] }),
      tool('list_dir', 'Lists a dir.'),
    ];
    const purpose = lint(tools).findings.filter((finding) => finding.rule === 'description-purpose');
    expect(purpose.map((finding) => finding.tool)).toEqual(['list_dir']);
  });

  it('refuses a disable list that names no rule', () => {
    expect(() => lint([tool('read_file', 'Reads a file.', { disable: ['description-purpos'] })])).toThrow(
      /Tool "read_file" disables "description-purpos" in meta.lint.disable, which is not a lint rule; did you mean "description-purpose"/,
    );
  });

  it('sorts findings: the set first, then tools in registration order, then path and rule', () => {
    const tools = Array.from({ length: 21 }, (_, index) =>
      tool(index === 0 ? 'zeta' : `tool_${index}`, 'x.'),
    );
    const findings = lint(tools).findings;
    expect(findings[0]!.tool).toBeUndefined();
    const order = findings.filter((finding) => finding.tool).map((finding) => finding.tool);
    expect(order[0]).toBe('zeta');
    const again = lint(tools).findings;
    expect(again).toEqual(findings);
  });

  it('lints plain contracts as well as tools, and counts by severity', () => {
    const result = lint([{ ...tool('cleanup', 'Deletes temporary files.').contract }]);
    expect(result.errorCount).toBe(1);
    expect(result.findings.find((finding) => finding.severity === 'error')!.rule).toBe(
      'category-effects-agree',
    );
    expect(result.errorCount + result.warningCount + result.infoCount).toBe(result.findings.length);
  });

  it('runs an extra rule made with createRule, by name in the configuration', () => {
    const noTodo = createRule({
      name: 'no-todo',
      meta: {
        type: 'suggestion',
        description: 'Remove TODO notes from descriptions.',
        messages: { todo: 'The description of "{tool}" still says TODO.' },
        defaultOptions: {},
      },
      check(context) {
        for (const each of context.tools)
          if (each.contract.description.includes('TODO'))
            context.report({
              tool: each,
              path: '$.description',
              messageId: 'todo',
              data: { tool: each.name },
            });
      },
    });
    expect(noTodo.meta.docs).toMatch(/docs\/rules\/no-todo\.md$/);
    const config = resolveLintConfig({ rules: { 'no-todo': 'error' } }, { extraRules: [noTodo] });
    const findings = lint([tool('read_file', 'TODO.')], { config }).findings.filter(
      (finding) => finding.rule === 'no-todo',
    );
    expect(findings.map((finding) => finding.message)).toEqual([
      'The description of "read_file" still says TODO.',
    ]);
  });

  it('createRule refuses a malformed rule at definition time', () => {
    const meta = {
      type: 'problem' as const,
      description: 'Do it.',
      messages: { a: 'A.' },
      defaultOptions: {},
    };
    expect(() => createRule({ name: 'No_Caps', meta, check() {} })).toThrow(/lower-case words joined by "-"/);
    expect(() =>
      createRule({ name: 'ok-name', meta: { ...meta, description: 'no capital' }, check() {} }),
    ).toThrow(/one sentence starting with a capital/);
  });

  it('lints plain contracts that lack a description or effects, and refuses one without a category', () => {
    const partial = { name: 'read_file', category: 'read', parameters: { type: 'object' } } as never;
    expect(lint([partial]).findings.map((finding) => finding.messageId)).toContain('empty');
    expect(() => lint([{ name: 'x', description: 'X.', parameters: {} } as never])).toThrow(
      /Tool contract "x" has category undefined; give it one of read, search, write, execute, delegate/,
    );
    expect(() => lint([42 as never])).toThrow(
      /Item 0 of the lint source is neither a tool nor a tool contract/,
    );
  });

  it('never lets hostile names reach the prototype (own-property look-ups only)', () => {
    const result = lint([
      tool('constructor', 'Reads the constructor.'),
      tool('__proto__', 'Reads __proto__.'),
    ]);
    expect(result.findings.every((finding) => typeof finding.message === 'string')).toBe(true);
  });
});
