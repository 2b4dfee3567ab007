/** A UTF-16 surrogate with no partner: what cutting a string between the halves of an emoji leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text the model wrote, made storable. Postgres refuses a NUL character in any text, and an
 * unpaired surrogate inside JSON (jsonb cannot hold one): a reply or a question carrying
 * either would fail the turn's commit, and the turn would be run again, and fail again,
 * instead of answering. A NUL is dropped; a lone surrogate becomes U+FFFD, as UTF-8 would
 * write it anyway.
 */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}

/** {@link storableText} for every string in a JSON-like value (a question's payload: held tool inputs, a kept plan). */
export function storable<Value>(value: Value): Value {
  if (typeof value === 'string') return storableText(value) as Value;
  if (Array.isArray(value)) return value.map((item: unknown) => storable(item)) as Value;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storable(item)])) as Value;
  }
  return value;
}
