import { describe, expect, it } from 'vitest';
import { createTool, Registry, TOOL_NAME_PATTERN, ToolDefinitionError } from '../../src/index.js';
import { nameKeys, providerToolName, toolNameMap } from '../../src/schema/index.js';

const make = (name: string) =>
  createTool(
    { name, description: `Tool ${name}.`, category: 'read', parameters: { type: 'object' } },
    { execute: () => null },
  );

describe('names after provider aliasing', () => {
  it('refuses two tools that one provider would see under the same name', () => {
    expect(() => new Registry().register(make('files.read'), make('files_read'))).toThrow(
      ToolDefinitionError,
    );
    const registry = new Registry().register(make('files.read'));
    try {
      registry.register(make('files_read'));
      expect.fail('the second tool was accepted');
    } catch (error) {
      expect((error as ToolDefinitionError).code).toBe('duplicate_name');
      expect((error as Error).message).toContain('"files.read" and "files_read"');
    }
    registry.unregister('files.read');
    expect(registry.register(make('files_read')).has('files_read')).toBe(true);
  });

  it('aliases long names deterministically within 64 characters', () => {
    const long = `${'a'.repeat(70)}.x`;
    const other = `${'a'.repeat(70)}.y`;
    const alias = providerToolName(long, 'openai');
    expect(alias).toMatch(TOOL_NAME_PATTERN);
    expect(alias).toHaveLength(64);
    expect(providerToolName(long, 'openai')).toBe(alias);
    expect(providerToolName(other, 'openai')).not.toBe(alias);
    expect(nameKeys(long)).not.toEqual(nameKeys(other));
    expect(toolNameMap([{ name: long }], 'anthropic').fromProvider(alias)).toBe(long);
  });

  it('gives Gemini a letter first', () => {
    expect(providerToolName('2fa-check', 'gemini')).toBe('_2fa-check');
    expect(providerToolName('2fa-check', 'openai')).toBe('2fa-check');
  });
});

describe('registry.schemas(format, options)', () => {
  it('caches per format and options until the registry changes, and keeps schemas() as it was', () => {
    const registry = new Registry().register(make('one'));
    const contracts = registry.schemas();
    const openai = registry.schemas('openai');
    expect(registry.schemas('openai')).toBe(openai);
    expect(registry.schemas('openai', { strict: true })).not.toBe(openai);
    expect(registry.schemas('openai', { strict: true })).toBe(registry.schemas('openai', { strict: true }));
    expect(registry.schemas('canonical')).toBe(contracts);
    expect(Object.isFrozen(openai[0])).toBe(true);
    registry.register(make('two'));
    expect(registry.schemas('openai')).not.toBe(openai);
    expect(registry.schemas('openai').map((tool) => tool.function.name)).toEqual(['one', 'two']);
    expect(registry.schemas().map((contract) => contract.name)).toEqual(['one', 'two']);
  });
});
