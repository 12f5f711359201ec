import type { JsonSchema } from '../contract/index.js';

const OLD_DIALECT = /draft-0[4-7]\/schema/;

/**
 * A remote schema in draft 2020-12 form, so the shared ajv can check it. Servers built on the SDK's
 * `McpServer` publish draft-07 (typescript-sdk#2721); the only draft-07 keywords 2020-12 reads
 * differently are array-form `items` (now `prefixItems`, with `additionalItems` becoming `items`) and
 * `dependencies` (now `dependentRequired` / `dependentSchemas`). Everything else is kept as it came.
 *
 * @example
 * upgradeSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] });
 * // { type: 'array', prefixItems: [{ type: 'string' }] }
 */
export function upgradeSchema(schema: JsonSchema): JsonSchema {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const { $schema: _dialect, ...rest } = schema;
  return (OLD_DIALECT.test(dialect) ? upgradeNode(rest, 0) : rest) as JsonSchema;
}

function upgradeNode(node: unknown, depth: number): unknown {
  if (depth > 64 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => upgradeNode(item, depth + 1));
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') {
      out[key] = value;
    } else if (key === 'items' && Array.isArray(value)) {
      out.prefixItems = upgradeNode(value, depth + 1);
      if (source.additionalItems !== undefined) out.items = upgradeNode(source.additionalItems, depth + 1);
    } else if (key === 'additionalItems' && Array.isArray(source.items)) {
      // Folded into `items` above.
    } else if (key === 'dependencies' && value !== null && typeof value === 'object') {
      for (const [property, dependency] of Object.entries(value)) {
        const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        out[target] ??= {};
        const bucket = out[target] as Record<string, unknown>;
        bucket[property] = Array.isArray(dependency) ? dependency : upgradeNode(dependency, depth + 1);
      }
    } else {
      out[key] = upgradeNode(value, depth + 1);
    }
  }
  return out;
}
