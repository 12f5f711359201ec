import { html } from './html.js';

/** A JSON Schema as a tree a person reads: name, type, required, description, constraints, children. */
export function SchemaTree({ schema, findings = [], path = '$.parameters' }) {
  if (!schema || typeof schema !== 'object') return html`<p class="muted">No schema.</p>`;
  const children = childrenOf(schema, path);
  if (children.length === 0)
    return html`<div class="schema-tree"><${SchemaNode} name="(value)" schema=${schema} path=${path} findings=${findings} required=${true} /></div>`;
  return html`<ul class="schema-tree">${children.map((child) => html`<li><${SchemaNode} ...${child} findings=${findings} /></li>`)}</ul>`;
}

function SchemaNode({ name, schema, path, required, findings }) {
  const here = findings.filter((finding) => finding.path === path);
  const children = childrenOf(schema, path);
  return html`<div class="schema-node" data-path=${path}>
    <span class="schema-name">${name}</span>
    <span class="schema-type">${typeOf(schema)}</span>
    ${required ? html`<span class="schema-required">required</span>` : html`<span class="schema-optional">optional</span>`}
    ${constraints(schema).map((text) => html`<span class="schema-constraint">${text}</span>`)}
    ${schema.description ? html`<div class="schema-description">${schema.description}</div>` : null}
    ${here.map((finding) => html`<div class=${`schema-finding severity-${finding.severity}`}><code class="rule">${finding.rule}</code> ${finding.message}</div>`)}
    ${children.length > 0 ? html`<ul>${children.map((child) => html`<li><${SchemaNode} ...${child} findings=${findings} /></li>`)}</ul>` : null}
  </div>`;
}

function childrenOf(schema, path) {
  if (!schema || typeof schema !== 'object') return [];
  const out = [];
  if (schema.properties && typeof schema.properties === 'object') {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [name, child] of Object.entries(schema.properties)) {
      out.push({ name, schema: child, path: `${path}.properties.${name}`, required: required.has(name) });
    }
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) {
    const items = schema.items;
    if (items.properties || items.items || items.anyOf || items.oneOf) {
      out.push({ name: '[item]', schema: items, path: `${path}.items`, required: true });
    }
  }
  for (const keyword of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[keyword])) {
      schema[keyword].forEach((option, index) => {
        out.push({
          name: `${keyword}[${index}]`,
          schema: option,
          path: `${path}.${keyword}[${index}]`,
          required: false,
        });
      });
    }
  }
  return out;
}

function typeOf(schema) {
  if (schema.const !== undefined) return `const ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum))
    return `enum ${schema.enum.map((value) => JSON.stringify(value)).join(' | ')}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (type === 'array' && schema.items && typeof schema.items === 'object')
    return `array of ${typeOf(schema.items)}`;
  if (type) return type;
  if (typeof schema.$ref === 'string') return `ref ${schema.$ref.split('/').pop()}`;
  if (schema.anyOf) return 'any of';
  if (schema.oneOf) return 'one of';
  return 'any';
}

const CONSTRAINTS = [
  ['default', (value) => `default ${JSON.stringify(value)}`],
  ['format', (value) => `format ${value}`],
  ['pattern', (value) => `pattern /${value}/`],
  ['minimum', (value) => `≥ ${value}`],
  ['exclusiveMinimum', (value) => `> ${value}`],
  ['maximum', (value) => `≤ ${value}`],
  ['exclusiveMaximum', (value) => `< ${value}`],
  ['minLength', (value) => `length ≥ ${value}`],
  ['maxLength', (value) => `length ≤ ${value}`],
  ['minItems', (value) => `items ≥ ${value}`],
  ['maxItems', (value) => `items ≤ ${value}`],
];

function constraints(schema) {
  return CONSTRAINTS.filter(([keyword]) => schema[keyword] !== undefined).map(([keyword, render]) =>
    render(schema[keyword]),
  );
}
