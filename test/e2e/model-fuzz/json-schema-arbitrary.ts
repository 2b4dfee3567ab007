import fc from 'fast-check';
import { LongText, longText } from './long-text.js';

/** The part of JSON Schema (draft 7) that zod's `toJSONSchema` writes for Herald's tools. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
}

/**
 * Values a model would pick for a string, by the property's name (ids, names, addresses,
 * dates): mixed in with what the schema alone allows, so calls reach real rows (the
 * user's own, and another user's) instead of only random text. Undefined: the schema's own.
 */
export type StringHints = (name: string, schema: JsonSchema) => fc.Arbitrary<string> | undefined;

/** Deeper than this, objects and arrays are left out: the page schema nests sections in rows in sections. */
const MAX_DEPTH = 6;
/** Strings a model writes are short; a long one (up to the schema's limit) comes one time in ten. */
const SHORT_STRING = 40;

/**
 * A fast-check arbitrary of values valid for `schema` as JSON Schema sees it. Zod's own checks
 * that JSON Schema cannot say (refinements, trims) are not applied: a value may still be
 * refused by the tool, as a model's would.
 */
export function validValue(schema: JsonSchema, hints: StringHints, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((branch) => validValue({ ...branch, description: schema.description }, hints, name, depth)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => validValue({ ...schema, type }, hints, name, depth)));
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      return stringValue(schema, hints, name);
    case 'integer':
      return fc.integer({ min: Math.ceil(schema.minimum ?? -1_000_000), max: Math.floor(schema.maximum ?? 1_000_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth >= MAX_DEPTH) return fc.constant([]);
      const minLength = schema.minItems ?? 0;
      const items = validValue(schema.items ?? {}, hints, name, depth + 1);
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, 4)) });
    }
    case 'object': {
      if (depth >= MAX_DEPTH) return fc.constant({});
      const properties = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, validValue(property, hints, key, depth + 1)]));
      const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
      if (typeof schema.additionalProperties !== 'object' || Object.keys(properties).length > 0) return record;
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), validValue(schema.additionalProperties, hints, '', depth + 1), { maxKeys: 3 });
    }
    default:
      // `{}`: anything at all.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringValue(schema: JsonSchema, hints: StringHints, name: string): fc.Arbitrary<unknown> {
  const own = ownString(schema);
  const hinted = hints(name, schema);
  return hinted ? fc.oneof({ weight: 3, arbitrary: hinted }, { weight: 1, arbitrary: own }) : own;
}

function ownString(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 5_000;
  const short = Math.max(minLength, Math.min(maxLength, SHORT_STRING));
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength, maxLength: short }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: short }) },
    // Up to the limit, as a model that rambles would (written out only when sent).
    { weight: 1, arbitrary: longText(['x', 'é', '字 ', '🙂'], minLength, maxLength) },
  );
}

/** Values a JSON Schema refuses, in place of a key's value. */
const wrongValues: unknown[] = [null, 42, -1, true, [], {}, 'wrong', [null], { nested: { deeper: [1, 'two'] } }];

/**
 * Inputs a model gets wrong, from a valid one: a required key dropped, a value of the wrong
 * type, a key the schema does not have, a huge string, or not an object at all (a string of
 * broken JSON, null, an array, a number), as a model's malformed tool input arrives.
 */
export function mutatedValue(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const keyed = (change: (value: Record<string, unknown>, key: string, pick: number) => void) =>
    fc.tuple(valid, fc.nat(), fc.nat()).map(([value, keyPick, pick]) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      const keys = Object.keys(copy);
      change(copy, keys.length > 0 ? keys[keyPick % keys.length]! : 'missing', pick);
      return copy;
    });
  return fc.oneof(
    keyed((value, key) => void delete value[key]),
    keyed((value, key, pick) => void (value[key] = wrongValues[pick % wrongValues.length])),
    keyed((value, _key, pick) => void (value[`unexpected_${pick % 3}`] = 'x')),
    keyed((value, key, pick) => void (value[key] = new LongText('Ω', 100_000 + (pick % 50_000)))),
    fc.constantFrom<unknown>('{"to": ["dana@herald.test"], "body": "hi', '{}}', '', 'null', null, [], [{}], 0, 3.5, true),
  );
}
