import type TS from 'typescript';
import type { ArgumentPath } from '../typed/generated-contracts.js';
import type { Report } from './diagnostics.js';
import { readOwnComment } from './doc-comment.js';
import { applyDocs } from './doc-tags.js';
import { docText } from './doc-text.js';
import ts from './peer.js';
import type { SchemaNode, Site } from './schema-node.js';

interface NamedEntry {
  readonly name: string;
  schema: SchemaNode | undefined;
  readonly occurrences: { node: SchemaNode; typeKeys: string[] }[];
  recursive: boolean;
  converting: boolean;
  relativeDates: ArgumentPath[];
  containsDates: boolean;
}

const MAX_DEPTH = 64;

const JSON_FORMATS_NOTE = 'JSON can carry strings, numbers, booleans, null, arrays and plain objects';

/**
 * Turns checker types into JSON Schema (draft 2020-12): primitives, literals and their unions (`enum`),
 * optional members, arrays and tuples (`prefixItems`), interfaces and aliases (inlined, or `$defs` when
 * used twice or recursive), records, unions (`anyOf`), enums, `Date` (a `date-time` string), generic
 * instantiations and mapped utility types as the checker resolves them. What JSON cannot carry is
 * reported, never dropped, and conversion goes on so every problem is found in one pass.
 *
 * One builder serves one schema root: call {@link convert} for its parts, then {@link finish}.
 *
 * @example
 * const builder = new SchemaBuilder(checker, report, isUserFile);
 * const schema = builder.convert(checker.getTypeAtLocation(parameter), { at: parameter, what: 'parameter "range"', path: ['range'] });
 * builder.finish(schema, parameter, 'tool "read_file"');
 */
export class SchemaBuilder {
  readonly #checker: TS.TypeChecker;
  readonly #report: Report;
  readonly #isUserFile: (file: TS.SourceFile) => boolean;
  readonly #entries = new Map<TS.Type, NamedEntry>();
  readonly #names = new Set<string>();
  readonly #dates: ArgumentPath[] = [];
  /** Declarations of the source's own types that the schema was read from (they go into the inputs hash). */
  readonly declarations = new Set<TS.Node>();
  #unionDepth = 0;
  #depth = 0;

  constructor(checker: TS.TypeChecker, report: Report, isUserFile: (file: TS.SourceFile) => boolean) {
    this.#checker = checker;
    this.#report = report;
    this.#isUserFile = isUserFile;
  }

  /** The argument paths of every `Date` found so far. */
  get dates(): readonly ArgumentPath[] {
    return this.#dates;
  }

  /** The schema of `type`, as a fresh node the caller may add annotations to. */
  convert(type: TS.Type, site: Site): SchemaNode {
    const checker = this.#checker;
    const flags = type.flags;
    if (flags & ts.TypeFlags.Any) {
      return this.#unsupported(
        site,
        type,
        'any says nothing the model can follow; use unknown for "any JSON value", or a precise type',
      );
    }
    if (flags & ts.TypeFlags.Unknown) return {};
    if (flags & ts.TypeFlags.Never) return this.#unsupported(site, type, 'never has no values');
    if (flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) {
      return this.#unsupported(
        site,
        type,
        `undefined cannot be sent in JSON; make the member optional instead`,
      );
    }
    if (flags & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) {
      return this.#unsupported(
        site,
        type,
        'JSON has no bigint; use number, or a string of digits with @pattern',
      );
    }
    if (flags & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)) {
      return this.#unsupported(site, type, 'a symbol cannot be sent in JSON');
    }
    if (flags & ts.TypeFlags.TypeParameter) {
      return this.#unsupported(
        site,
        type,
        'an unresolved type parameter has no schema; generics are read as instantiated, so give the type argument',
      );
    }
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (flags & ts.TypeFlags.StringLiteral)
      return { type: 'string', const: (type as TS.StringLiteralType).value };
    if (flags & ts.TypeFlags.NumberLiteral)
      return { type: 'number', const: (type as TS.NumberLiteralType).value };
    if (flags & ts.TypeFlags.BooleanLiteral)
      return { type: 'boolean', const: intrinsicName(type) === 'true' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.String) return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.TemplateLiteral) return templateLiteral(type as TS.TemplateLiteralType);
    if (flags & ts.TypeFlags.StringMapping) return { type: 'string' };
    if (flags & ts.TypeFlags.Union) {
      return this.#named(type, site, () => this.#union(type as TS.UnionType, site));
    }
    if (flags & ts.TypeFlags.NonPrimitive) return { type: 'object' };
    if (flags & ts.TypeFlags.Intersection) {
      const parts = (type as TS.IntersectionType).types;
      if (
        parts.some(
          (part) =>
            part.flags &
            (ts.TypeFlags.StringLike |
              ts.TypeFlags.NumberLike |
              ts.TypeFlags.BooleanLike |
              ts.TypeFlags.BigIntLike),
        )
      ) {
        return this.#unsupported(
          site,
          type,
          'an intersection with a primitive (a branded type) has no JSON Schema; use the primitive with a doc tag such as @pattern',
        );
      }
      return this.#object(type, site);
    }
    if (flags & ts.TypeFlags.Object) {
      if (isDate(type, checker)) {
        if (site.path && this.#unionDepth > 0) {
          this.#report(
            site.at,
            'unsupported_type',
            `${site.what} has a Date inside a union, where it cannot be told apart from a string to convert it; use Date | null, or a string with @format date-time`,
            'Date',
          );
        } else if (site.path) {
          this.#dates.push(site.path);
        }
        return { type: 'string', format: 'date-time' };
      }
      if (checker.isTupleType(type)) return this.#tuple(type as TS.TypeReference, site);
      if (checker.isArrayType(type)) {
        const [element] = checker.getTypeArguments(type as TS.TypeReference);
        return {
          type: 'array',
          items: this.convert(element ?? checker.getUnknownType(), child(site, null, 'item')),
        };
      }
      return this.#object(type, site);
    }
    return this.#unsupported(site, type, `it is not a type JSON can carry (${JSON_FORMATS_NOTE})`);
  }

  /**
   * Moves every reused or recursive named type into `$defs` on `root` and points its occurrences there.
   * Reports a recursive type that contains a `Date` (its paths cannot be listed).
   */
  finish(root: SchemaNode, at: TS.Node, what: string): void {
    const defs: SchemaNode = {};
    for (const entry of this.#entries.values()) {
      if (!entry.schema || !(entry.recursive || entry.occurrences.length > 1)) continue;
      if (entry.recursive && entry.containsDates) {
        this.#report(
          at,
          'unsupported_type',
          `${what} uses the recursive type ${entry.name}, which contains a Date; dates cannot be converted at every depth, so use a string with @format date-time there`,
          entry.name,
        );
      }
      defs[entry.name] = entry.schema;
      for (const occurrence of entry.occurrences) {
        const annotations = Object.entries(occurrence.node).filter(
          ([key]) => !occurrence.typeKeys.includes(key),
        );
        for (const key of Object.keys(occurrence.node)) delete occurrence.node[key];
        occurrence.node.$ref = `#/$defs/${entry.name}`;
        for (const [key, value] of annotations) occurrence.node[key] = value;
      }
    }
    if (Object.keys(defs).length > 0) root.$defs = defs;
  }

  #union(type: TS.UnionType, site: Site): SchemaNode {
    const members = type.types.filter(
      (member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)),
    );
    const hasNull = members.some((member) => member.flags & ts.TypeFlags.Null);
    let rest = members.filter((member) => !(member.flags & ts.TypeFlags.Null));
    const hasTrue = rest.some(
      (member) => member.flags & ts.TypeFlags.BooleanLiteral && intrinsicName(member) === 'true',
    );
    const hasFalse = rest.some(
      (member) => member.flags & ts.TypeFlags.BooleanLiteral && intrinsicName(member) === 'false',
    );
    const wholeBoolean = hasTrue && hasFalse;
    if (wholeBoolean) rest = rest.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral));
    const literals = this.#sourceOrder(
      rest.filter(
        (member) =>
          member.flags &
          (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral),
      ),
      site.typeNode,
    );
    const others = rest.filter((member) => !literals.includes(member));
    if (rest.length === 0 && !wholeBoolean) {
      return hasNull ? { type: 'null' } : this.#unsupported(site, type, 'it has no values JSON can carry');
    }
    const branches: SchemaNode[] = [];
    if (wholeBoolean) branches.push({ type: 'boolean' });
    if (literals.length === 1) branches.push(this.convert(literals[0]!, site));
    else if (literals.length > 1) {
      const values = literals.map(literalValue);
      const kinds = [...new Set(values.map((value) => typeof value))];
      branches.push(kinds.length === 1 ? { type: kinds[0], enum: values } : { enum: values });
    }
    const single = branches.length + others.length === 1;
    if (!single) this.#unionDepth++;
    try {
      for (const member of others) branches.push(this.convert(member, site));
    } finally {
      if (!single) this.#unionDepth--;
    }
    if (hasNull) branches.push({ type: 'null' });
    if (branches.length === 1) return branches[0]!;
    return { anyOf: branches };
  }

  /**
   * Literal members in the order the source wrote them: enum members by declaration, a written union
   * (directly or through type aliases) by its text. The checker's own order follows type creation, so
   * `'file' | 'link'` could otherwise come out as `["link", "file"]`.
   */
  #sourceOrder(literals: TS.Type[], typeNode: TS.TypeNode | undefined): TS.Type[] {
    const written = this.#writtenLiterals(typeNode, 0);
    const rank = (member: TS.Type): number => {
      const declaration = member.getSymbol()?.valueDeclaration;
      if (declaration && ts.isEnumMember(declaration)) return declaration.getStart();
      const index = written.indexOf(literalValue(member));
      return index < 0 ? Number.MAX_SAFE_INTEGER : index;
    };
    return [...literals].sort((a, b) => rank(a) - rank(b));
  }

  #writtenLiterals(node: TS.TypeNode | undefined, hops: number): unknown[] {
    if (!node || hops > 8) return [];
    if (ts.isParenthesizedTypeNode(node)) return this.#writtenLiterals(node.type, hops + 1);
    if (ts.isUnionTypeNode(node))
      return node.types.flatMap((member) => this.#writtenLiterals(member, hops + 1));
    if (ts.isLiteralTypeNode(node)) {
      const literal = node.literal;
      if (ts.isStringLiteral(literal)) return [literal.text];
      if (ts.isNumericLiteral(literal)) return [Number(literal.text)];
      if (literal.kind === ts.SyntaxKind.TrueKeyword) return [true];
      if (literal.kind === ts.SyntaxKind.FalseKeyword) return [false];
      return [];
    }
    if (ts.isTypeReferenceNode(node)) {
      let symbol = this.#checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.#checker.getAliasedSymbol(symbol);
      const alias = symbol?.declarations?.find(ts.isTypeAliasDeclaration);
      return alias ? this.#writtenLiterals(alias.type, hops + 1) : [];
    }
    return [];
  }

  #tuple(type: TS.TypeReference, site: Site): SchemaNode {
    const target = type.target as TS.TupleType;
    const elements = this.#checker.getTypeArguments(type);
    const prefixItems: SchemaNode[] = [];
    let items: SchemaNode | false = false;
    let minItems = 0;
    elements.forEach((element, index) => {
      const flag = target.elementFlags[index] ?? ts.ElementFlags.Required;
      if (flag & (ts.ElementFlags.Rest | ts.ElementFlags.Variadic)) {
        items = this.convert(element, child(site, null, 'item'));
        return;
      }
      prefixItems.push(this.convert(element, child(site, index, `item ${index}`)));
      if (flag & ts.ElementFlags.Required) minItems = index + 1;
    });
    const schema: SchemaNode = { type: 'array', prefixItems, items };
    if (minItems > 0) schema.minItems = minItems;
    if (items === false) schema.maxItems = prefixItems.length;
    return schema;
  }

  #object(type: TS.Type, site: Site): SchemaNode {
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
      return this.#unsupported(site, type, 'a function cannot be sent in JSON');
    }
    return this.#named(type, site, () => this.#objectBody(type, site));
  }

  /** Converts a type that may be named: inlined the first time, a `$ref` when reused or recursive. */
  #named(type: TS.Type, site: Site, body: () => SchemaNode): SchemaNode {
    const name = this.#nameOf(type);
    if (!name) {
      if (this.#depth > MAX_DEPTH) {
        return this.#unsupported(
          site,
          type,
          `it nests more than ${MAX_DEPTH} levels deep without a name to refer to; give the recursive part a type alias or interface`,
        );
      }
      this.#depth++;
      try {
        return body();
      } finally {
        this.#depth--;
      }
    }
    let entry = this.#entries.get(type);
    if (entry?.converting) {
      entry.recursive = true;
      const node: SchemaNode = { $ref: `#/$defs/${entry.name}` };
      entry.occurrences.push({ node, typeKeys: ['$ref'] });
      return node;
    }
    if (entry?.schema) {
      const node: SchemaNode = { ...entry.schema };
      entry.occurrences.push({ node, typeKeys: Object.keys(node) });
      if (site.path) {
        if (entry.relativeDates.length > 0 && this.#unionDepth > 0) {
          this.#report(
            site.at,
            'unsupported_type',
            `${site.what} has a Date inside a union, where it cannot be told apart from a string to convert it; use Date | null, or a string with @format date-time`,
            entry.name,
          );
        } else {
          for (const relative of entry.relativeDates) this.#dates.push([...site.path, ...relative]);
        }
      }
      return node;
    }
    entry = {
      name: this.#uniqueName(name),
      schema: undefined,
      occurrences: [],
      recursive: false,
      converting: true,
      relativeDates: [],
      containsDates: false,
    };
    this.#entries.set(type, entry);
    const datesBefore = this.#dates.length;
    this.#noteDeclarations(type.aliasSymbol ?? type.getSymbol());
    const schema = body();
    entry.converting = false;
    entry.schema = schema;
    if (site.path) {
      const prefix = site.path.length;
      entry.relativeDates = this.#dates.slice(datesBefore).map((path) => path.slice(prefix));
    }
    entry.containsDates = entry.relativeDates.length > 0;
    const node: SchemaNode = { ...schema };
    entry.occurrences.push({ node, typeKeys: Object.keys(node) });
    return node;
  }

  #objectBody(type: TS.Type, site: Site): SchemaNode {
    const checker = this.#checker;
    const properties: SchemaNode = {};
    const required: string[] = [];
    const methods: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const at = declaration && this.#isUserFile(declaration.getSourceFile()) ? declaration : site.at;
      const propertyType = checker.getTypeOfSymbol(property);
      if (property.name === '__proto__') {
        // Dispatch refuses the key in every call, and in the generated module it would set a prototype.
        this.#report(
          at,
          'unsupported_declaration',
          `${site.what} has a member named "__proto__", which no call can send; rename it.`,
        );
        continue;
      }
      if (
        declaration &&
        (ts.isMethodSignature(declaration) ||
          ts.isMethodDeclaration(declaration) ||
          ts.isGetAccessor(declaration))
      ) {
        methods.push(property.name);
        continue;
      }
      if (checker.getNonNullableType(propertyType).getCallSignatures().length > 0) {
        methods.push(property.name);
        continue;
      }
      // JSON cannot carry undefined, so a member that may be undefined may be absent.
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0 || mayBeUndefined(propertyType);
      // An optional member's type includes undefined; the union reader drops it.
      const typeNode = declaration && ts.isPropertySignature(declaration) ? declaration.type : undefined;
      const node = this.convert(propertyType, {
        ...child({ ...site, at }, property.name, `property "${property.name}"`),
        typeNode,
      });
      this.#annotate(
        node,
        property,
        { ...site, at, what: `property "${property.name}" of ${site.what}` },
        declaration,
      );
      properties[property.name] = node;
      if (!optional) required.push(property.name);
    }
    if (methods.length > 0) {
      const named = methods.filter((method) => !method.startsWith('__@'));
      const shown = named.length > 5 ? `${named.slice(0, 5).join(', ')}, …` : named.join(', ');
      return this.#unsupported(
        site,
        type,
        `it has methods (${shown}), so it is a class instance or an interface of behaviour, not data; JSON carries only the data`,
      );
    }
    const schema: SchemaNode = { type: 'object' };
    const index = checker
      .getIndexInfosOfType(type)
      .find(
        (info) =>
          info.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.Number | ts.TypeFlags.TemplateLiteral),
      );
    if (Object.keys(properties).length > 0 || !index) schema.properties = properties;
    if (required.length > 0) schema.required = required;
    schema.additionalProperties = index ? this.convert(index.type, child(site, null, 'value')) : false;
    return schema;
  }

  /**
   * Adds a property's description and doc-tag keywords to its schema: read from the comment on its
   * declaration when that is the source's own (so a tag toolpact does not read is reported there), from
   * the checker otherwise.
   */
  #annotate(node: SchemaNode, symbol: TS.Symbol, site: Site, declaration: TS.Node | undefined): void {
    const own =
      declaration && this.#isUserFile(declaration.getSourceFile())
        ? readOwnComment(declaration, site.what, this.#report)
        : {
            description: docText(ts.displayPartsToString(symbol.getDocumentationComment(this.#checker))),
            tags: symbol.getJsDocTags(this.#checker).map((tag) => ({
              name: tag.name,
              text: ts.displayPartsToString(tag.text ?? []).trim(),
            })),
          };
    applyDocs(node, own, site, this.#report);
  }

  /** A `$defs` name for the source's own named types; library types (Record, Partial, …) stay inline. */
  #nameOf(type: TS.Type): string | undefined {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol) return undefined;
    if (!(symbol.declarations ?? []).some((declaration) => this.#isUserFile(declaration.getSourceFile()))) {
      return undefined;
    }
    const name = symbol.getName();
    if (name === '__type' || name === '__object' || name.startsWith('__')) {
      return type.aliasSymbol ? sanitize(this.#checker.typeToString(type)) : undefined;
    }
    const args = type.aliasSymbol ? type.aliasTypeArguments : (type as TS.TypeReference).typeArguments;
    return args && args.length > 0 ? sanitize(this.#checker.typeToString(type)) : sanitize(name);
  }

  #uniqueName(name: string): string {
    let candidate = name;
    for (let suffix = 2; this.#names.has(candidate); suffix++) candidate = `${name}_${suffix}`;
    this.#names.add(candidate);
    return candidate;
  }

  #noteDeclarations(symbol: TS.Symbol | undefined): void {
    for (const declaration of symbol?.declarations ?? []) {
      if (this.#isUserFile(declaration.getSourceFile())) this.declarations.add(declaration);
    }
  }

  #unsupported(site: Site, type: TS.Type, why: string): SchemaNode {
    const printed = this.#checker.typeToString(type);
    this.#report(
      site.at,
      'unsupported_type',
      `${site.what} has type ${printed}, which toolpact cannot describe: ${why}.`,
      printed,
    );
    return {};
  }
}

function child(site: Site, segment: string | number | null, label: string): Site {
  return {
    at: site.at,
    what: `${label} of ${site.what}`,
    path: site.path ? [...site.path, segment] : undefined,
  };
}

function mayBeUndefined(type: TS.Type): boolean {
  if (type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return true;
  return (
    Boolean(type.flags & ts.TypeFlags.Union) &&
    (type as TS.UnionType).types.some((member) => member.flags & ts.TypeFlags.Undefined)
  );
}

function intrinsicName(type: TS.Type): string | undefined {
  return (type as { intrinsicName?: string }).intrinsicName;
}

function literalValue(type: TS.Type): string | number | boolean {
  if (type.flags & ts.TypeFlags.BooleanLiteral) return intrinsicName(type) === 'true';
  return (type as TS.LiteralType).value as string | number;
}

function isDate(type: TS.Type, checker: TS.TypeChecker): boolean {
  const symbol = type.getSymbol();
  if (symbol?.getName() !== 'Date') return false;
  return (
    (symbol.declarations ?? []).some((declaration) => {
      const file = declaration.getSourceFile();
      return file.hasNoDefaultLib || /[\\/]lib\.[^\\/]*\.d\.ts$/.test(file.fileName);
    }) && checker.getPropertiesOfType(type).some((property) => property.name === 'toISOString')
  );
}

function templateLiteral(type: TS.TemplateLiteralType): SchemaNode {
  let pattern = `^${escapeRegExp(type.texts[0] ?? '')}`;
  for (const [index, part] of type.types.entries()) {
    if (part.flags & ts.TypeFlags.String) pattern += '.*';
    else if (part.flags & ts.TypeFlags.Number) pattern += '-?\\d+(?:\\.\\d+)?';
    else return { type: 'string' };
    pattern += escapeRegExp(type.texts[index + 1] ?? '');
  }
  return { type: 'string', pattern: `${pattern}$` };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'Type';
}
