import { useState } from 'preact/hooks';
import { html } from './html.js';

/** The value a form starts with: defaults, then the first enum value or an empty value for required fields. */
export function initialValue(schema, required = true) {
  if (!schema || typeof schema !== 'object') return undefined;
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (schema.const !== undefined) return schema.const;
  if (!required) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (mainType(schema)) {
    case 'object': {
      const value = {};
      const needed = new Set(Array.isArray(schema.required) ? schema.required : []);
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        const initial = initialValue(child, needed.has(name));
        if (initial !== undefined) value[name] = initial;
      }
      return value;
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/** The fields of an object schema, bound to `value` (an object). */
export function SchemaForm({ schema, value, onChange }) {
  return html`<div class="schema-form">
    <${ObjectFields} schema=${schema} value=${value ?? {}} onChange=${onChange} path="" />
  </div>`;
}

function ObjectFields({ schema, value, onChange, path }) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return html`<p class="muted">No parameters.</p>`;
  return entries.map(([name, child]) => {
    const set = (next) => {
      const copy = { ...value };
      if (next === undefined) delete copy[name];
      else copy[name] = next;
      onChange(copy);
    };
    return html`<${Field} key=${name} name=${name} schema=${child} required=${required.has(name)}
      value=${value[name]} onChange=${set} path=${`${path}.${name}`} />`;
  });
}

function Field({ name, schema, required, value, onChange, path }) {
  const id = `field${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const label = html`<label for=${id} class="field-label">
    ${name}${required ? html`<span class="required-mark" title="required">*</span>` : null}
  </label>`;
  const hint = schema.description ? html`<div class="field-hint">${schema.description}</div>` : null;
  const type = mainType(schema);
  let control;
  if (Array.isArray(schema.enum)) {
    const index = schema.enum.findIndex((option) => JSON.stringify(option) === JSON.stringify(value));
    control = html`<select id=${id} name=${name} value=${index < 0 ? '' : String(index)}
      onChange=${(event) => onChange(event.currentTarget.value === '' ? undefined : schema.enum[Number(event.currentTarget.value)])}>
      ${required ? null : html`<option value="">(not sent)</option>`}
      ${schema.enum.map((option, position) => html`<option value=${String(position)}>${typeof option === 'string' ? option : JSON.stringify(option)}</option>`)}
    </select>`;
  } else if (type === 'object' && schema.properties) {
    return html`<fieldset class="field-object" data-field=${path}>
      <legend>${name}${required ? html`<span class="required-mark">*</span>` : null}</legend>
      ${hint}
      ${
        value === undefined && !required
          ? html`<button type="button" onClick=${() => onChange(initialValue(schema))}>add ${name}</button>`
          : html`<${ObjectFields} schema=${schema} value=${value ?? {}} onChange=${onChange} path=${path} />
            ${required ? null : html`<button type="button" class="remove" onClick=${() => onChange(undefined)}>remove ${name}</button>`}`
      }
    </fieldset>`;
  } else if (type === 'array' && schema.items && typeof schema.items === 'object') {
    const items = Array.isArray(value) ? value : [];
    const setItem = (index, next) =>
      onChange(items.map((item, position) => (position === index ? next : item)));
    return html`<fieldset class="field-array" data-field=${path}>
      <legend>${name}${required ? html`<span class="required-mark">*</span>` : null}</legend>
      ${hint}
      ${items.map(
        (item, index) => html`<div class="array-item" key=${index}>
          <${Field} name=${`${name}[${index}]`} schema=${schema.items} required=${true} value=${item}
            onChange=${(next) => setItem(index, next)} path=${`${path}[${index}]`} />
          <button type="button" class="remove" onClick=${() => onChange(items.filter((_, position) => position !== index))}>remove</button>
        </div>`,
      )}
      <button type="button" class="add-item" onClick=${() => onChange([...items, initialValue(schema.items)])}>add item</button>
    </fieldset>`;
  } else if (type === 'boolean') {
    control = required
      ? html`<input id=${id} name=${name} type="checkbox" checked=${value === true} onChange=${(event) => onChange(event.currentTarget.checked)} />`
      : html`<select id=${id} name=${name} value=${value === undefined ? '' : String(value)}
          onChange=${(event) => onChange(event.currentTarget.value === '' ? undefined : event.currentTarget.value === 'true')}>
          <option value="">(not sent)</option><option value="true">true</option><option value="false">false</option>
        </select>`;
  } else if (type === 'integer' || type === 'number') {
    control = html`<input id=${id} name=${name} type="number" step=${type === 'integer' ? '1' : 'any'}
      value=${value === undefined ? '' : String(value)}
      onInput=${(event) => onChange(event.currentTarget.value === '' ? undefined : Number(event.currentTarget.value))} />`;
  } else if (type === 'string') {
    const long = (schema.maxLength ?? 0) > 200 || /content|text|body|query|prompt/i.test(name);
    const onInput = (event) => {
      const text = event.currentTarget.value;
      onChange(text === '' && !required ? undefined : text);
    };
    control = long
      ? html`<textarea id=${id} name=${name} rows="3" value=${value ?? ''} onInput=${onInput}></textarea>`
      : html`<input id=${id} name=${name} type="text" value=${value ?? ''} onInput=${onInput} />`;
  } else {
    control = html`<${JsonField} id=${id} name=${name} value=${value} onChange=${onChange} />`;
  }
  return html`<div class="field" data-field=${path}>${label}${control}${hint}</div>`;
}

// A value no simple control fits (a union, an untyped value): typed as JSON.
function JsonField({ id, name, value, onChange }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [problem, setProblem] = useState(null);
  const commit = () => {
    if (text.trim() === '') {
      setProblem(null);
      onChange(undefined);
      return;
    }
    try {
      onChange(JSON.parse(text));
      setProblem(null);
    } catch (error) {
      setProblem(error.message);
    }
  };
  return html`<span class="json-field">
    <input id=${id} name=${name} type="text" placeholder="JSON" value=${text} onInput=${(event) => setText(event.currentTarget.value)} onBlur=${commit} />
    ${problem ? html`<span class="field-problem">${problem}</span>` : null}
  </span>`;
}

function mainType(schema) {
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  return undefined;
}
