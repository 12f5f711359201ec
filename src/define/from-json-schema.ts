/**
 * The TypeScript type of the values a JSON Schema accepts, for schemas written `as const`.
 * Covers `type` (and type arrays), `properties`/`required` (a property with a `default` counts as
 * present, because defaults are applied before the tool runs), `items`, `prefixItems`, `enum`, `const`,
 * `anyOf`/`oneOf`. Anything else is `unknown`.
 *
 * @example
 * const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const;
 * type Args = FromJsonSchema<typeof schema>; // { path: string }
 */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer B)[] }
      ? FromJsonSchema<B>
      : S extends { readonly oneOf: readonly (infer B)[] }
        ? FromJsonSchema<B>
        : S extends { readonly type: readonly (infer T)[] }
          ? FromTypeName<T, S>
          : S extends { readonly type: infer T }
            ? FromTypeName<T, S>
            : unknown;

type FromTypeName<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? ArrayOf<S>
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

type ArrayOf<S> = S extends { readonly prefixItems: infer P extends readonly unknown[] }
  ? { -readonly [K in keyof P]: FromJsonSchema<P[K]> }
  : S extends { readonly items: infer I }
    ? FromJsonSchema<I>[]
    : unknown[];

type Present<S, P> =
  | (S extends { readonly required: readonly (infer R)[] } ? R : never)
  | { [K in keyof P]: P[K] extends { readonly default: unknown } ? K : never }[keyof P];

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends Present<S, P> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P as K extends Present<S, P> ? never : K]?: FromJsonSchema<P[K]>;
      }
    >
  : { [key: string]: unknown };

type Simplify<T> = { [K in keyof T]: T[K] } & {};
