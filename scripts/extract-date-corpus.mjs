#!/usr/bin/env node
// Turns two public date-expression corpora into the JSON fixtures under test/fixtures/dates/
// (Microsoft Recognizers-Text specs and Facebook Duckling's Haskell corpora), plus their
// README.md and LICENSE copies. Plain Node, no dependencies; same input, byte-identical output.
//
// Usage:
//   node scripts/extract-date-corpus.mjs \
//     --recognizers /tmp/rt --recognizers-commit <40-hex> \
//     --duckling /tmp/duckling --duckling-commit <40-hex> \
//     [--out test/fixtures/dates]
//
// --recognizers is a checkout (or extract) of github.com/microsoft/Recognizers-Text holding
//   Specs/DateTime/<Language>/*.json and LICENSE (the spec files may start with a UTF-8 BOM).
// --duckling is a checkout (or extract) of github.com/facebook/duckling holding
//   Duckling/Time/<LANG>/Corpus.hs, Duckling/Testing/Types.hs and LICENSE.
// The commits are recorded in every fixture; they are not checked against the folders.
// Extracting exactly the files read, from a clone or a bare mirror:
//   git -C <rt.git> archive <commit> Specs/DateTime LICENSE | tar -x -C /tmp/rt
//   git -C <duckling.git> archive <commit> Duckling/Time Duckling/Testing LICENSE | tar -x -C /tmp/duckling
// A per-file summary (records per type, what was skipped and why) goes to stdout.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const RT_URL = 'https://github.com/microsoft/Recognizers-Text';
const DUCKLING_URL = 'https://github.com/facebook/duckling';

const RT_LANGS = [
  ['en', 'English'],
  ['es', 'Spanish'],
  ['fr', 'French'],
  ['de', 'German'],
  ['pt', 'Portuguese'],
  ['ar', 'Arabic'],
];
// In this order in each fixture; DateTimeModel is the model format, the rest parser format.
const RT_STEMS = [
  'DateTimeModel',
  'DateParser',
  'TimeParser',
  'DateTimeParser',
  'HolidayParser',
  'DatePeriodParser',
  'DateTimePeriodParser',
  'TimePeriodParser',
  'DurationParser',
];
// The spec-generating C# tests (removed in 87bfb86d9, 2017-10-10) parsed at these instants;
// used only for entries with no Context.ReferenceDateTime whose expectation has no calendar
// date in it (times, time ranges, durations, unresolved sets), so it cannot change them.
const RT_FILL_REFERENCE = {
  DateTimePeriodParser: '2016-11-07T16:12:00',
  TimePeriodParser: '2016-11-07T16:12:00',
};
const RT_FILL_REFERENCE_DEFAULT = '2016-11-07T00:00:00';

const DUCKLING_LANGS = ['en', 'es', 'fr', 'de', 'pt', 'ru', 'ar', 'he'];

const TYPES = ['date', 'datetime', 'time', 'daterange', 'datetimerange', 'timerange', 'duration', 'set', 'holiday'];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;
const SECONDS = /^\d+(\.\d+)?$/;
const HAS_DATE = /\d{4}-\d{2}-\d{2}/;

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) usage(`unexpected argument ${a}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) usage(`${a} needs a value`);
    opts[m[1]] = value;
  }
  for (const k of Object.keys(opts)) {
    if (!['recognizers', 'recognizers-commit', 'duckling', 'duckling-commit', 'out'].includes(k)) usage(`unknown option --${k}`);
  }
  for (const k of ['recognizers', 'recognizers-commit', 'duckling', 'duckling-commit']) {
    if (!opts[k]) usage(`--${k} is required`);
  }
  for (const k of ['recognizers-commit', 'duckling-commit']) {
    if (!/^[0-9a-f]{40}$/.test(opts[k])) usage(`--${k} must be a 40-hex commit hash`);
  }
  return opts;
}

function usage(message) {
  console.error(`extract-date-corpus: ${message}`);
  console.error('usage: node scripts/extract-date-corpus.mjs --recognizers DIR --recognizers-commit SHA --duckling DIR --duckling-commit SHA [--out DIR]');
  process.exit(2);
}

// ---------------------------------------------------------------- shared helpers

// Counts under short keys (described in LEGEND), with optional details (ids) per key.
class Counter {
  constructor() {
    this.map = new Map();
    this.details = new Map();
  }
  add(key, n = 1, detail) {
    if (!LEGEND[key]) fail(`no legend for ${key}`);
    this.map.set(key, (this.map.get(key) ?? 0) + n);
    if (detail !== undefined) {
      if (!this.details.has(key)) this.details.set(key, []);
      this.details.get(key).push(detail);
    }
  }
  get(key) {
    return this.map.get(key) ?? 0;
  }
  entries() {
    return [...this.map.entries()];
  }
}

const LEGEND = {
  // Recognizers-Text, skipped
  negative: 'entries with no `Results` (negative examples), counted per entry',
  ignoreResolution: 'results of entries marked `IgnoreResolution: "true"` (upstream never checks their resolution; all Arabic)',
  noReference: 'results of entries without `ReferenceDateTime` whose expectation holds a calendar date (the runners would use the clock)',
  timezoneType: '`datetimeV2.timezone` results',
  timezoneValue: 'results whose values carry a time zone (`timezone`, `utcOffsetMins`)',
  noValues: 'results without `Resolution.values` (`Resolution: "not resolved"`)',
  // Recognizers-Text, kept but worth knowing
  futurePast: 'parser records whose past resolution differs from the future one (two values)',
  emptyFuture: 'parser records with an empty `FutureResolution` (value is the timex only)',
  filledReference: 'records from entries without `ReferenceDateTime` and with a date-free expectation (reference filled in)',
  truncatedReference: 'records whose reference had fractional seconds or an offset (cut to seconds)',
  otherValueType: 'model values whose own `type` differs from `TypeName` (approximate forms: a point with a range value)',
  phraseNotInInput: 'records whose phrase does not occur in the input (kept as in the spec)',
  // Duckling, skipped
  latent: 'phrases of `latentCorpus` (only pass with `withLatent = True`)',
  bcYear: 'phrases expecting a year before 0000 (`-2014` for "2014 BC")',
  untested: 'phrases of groups no corpus uses',
  otherOffset: 'phrases tested in another UTC offset than the file header',
  unrecognised: 'phrases whose expectation is not one of the five helper forms',
  unrepresentable: 'phrases whose expectation does not fit the format (fractional seconds, time of day at day grain…)',
  // Duckling, kept but worth knowing
  clipped: 'phrases whose tuple has month or day 0, clipped to 1 as Data.Time `fromGregorian` does',
  misaligned: 'phrases with a week/month/quarter/year grain not starting its period',
  otherReference: 'phrases tested at another reference than `testContext`',
  conflict: 'phrases listed again with a different expectation',
  // both
  duplicate: 'exact duplicates dropped (first id kept)',
  negativeDuplicate: 'negative phrases listed twice (kept once)',
};

// Records per type, in the fixed TYPES order.
function typeCounts(examples) {
  const c = new Map();
  for (const t of TYPES) {
    const n = examples.filter((e) => e.type === t).length;
    if (n) c.set(t, n);
  }
  return c;
}

function fail(message) {
  throw new Error(message);
}

// One record per line keeps the files compact and diffs readable; the file stays plain JSON.
function renderFixture(header, examples, negative) {
  const lines = ['{'];
  for (const [k, v] of Object.entries(header)) lines.push(`  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  lines.push('  "examples": [');
  examples.forEach((e, i) => lines.push(`    ${JSON.stringify(e)}${i < examples.length - 1 ? ',' : ''}`));
  if (negative) {
    lines.push('  ],');
    lines.push('  "negative": [');
    negative.forEach((p, i) => lines.push(`    ${JSON.stringify(p)}${i < negative.length - 1 ? ',' : ''}`));
  }
  lines.push('  ]');
  lines.push('}');
  return lines.join('\n') + '\n';
}

function checkValueFormat(where, field, s) {
  if (typeof s !== 'string') fail(`${where}: ${field} is not a string: ${JSON.stringify(s)}`);
  if (DATE.test(s) || DATETIME.test(s) || TIME.test(s) || SECONDS.test(s) || s === 'not resolved') return;
  fail(`${where}: ${field} has an unexpected format: ${JSON.stringify(s)}`);
}

// ---------------------------------------------------------------- Recognizers-Text

function readJsonWithBom(path) {
  return JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
}

function rtNotSupported(entry) {
  const parts = [];
  if (entry.NotSupported) parts.push(String(entry.NotSupported));
  if (entry.NotSupportedByDesign) parts.push(`byDesign: ${entry.NotSupportedByDesign}`);
  return parts.length ? parts.join('; ') : undefined;
}

// A value object with the fields in a fixed order, absent ones left out.
function valueObject(timex, v, mod, tense) {
  const o = {};
  if (timex !== undefined && timex !== null) o.timex = timex;
  if (v.value !== undefined) o.value = v.value;
  if (v.start !== undefined) o.start = v.start;
  if (v.end !== undefined) o.end = v.end;
  if (mod !== undefined && mod !== null) o.mod = mod;
  if (tense) o.tense = tense;
  return o;
}

const PARSER_KEYS = {
  date: 'value',
  time: 'value',
  dateTime: 'value',
  duration: 'value',
  startDate: 'start',
  startTime: 'start',
  startDateTime: 'start',
  endDate: 'end',
  endTime: 'end',
  endDateTime: 'end',
};

function parserResolution(where, res) {
  const out = {};
  for (const [k, v] of Object.entries(res ?? {})) {
    const field = PARSER_KEYS[k];
    if (!field) fail(`${where}: unknown resolution key ${k}`);
    if (out[field] !== undefined) fail(`${where}: two keys map to ${field}`);
    out[field] = v;
  }
  return out;
}

function extractRecognizers(root, commit) {
  const files = [];
  for (const [lang, dir] of RT_LANGS) {
    const skipped = new Counter();
    const notes = new Counter();
    const examples = [];
    const seen = new Map();
    for (const stem of RT_STEMS) {
      const path = join(root, 'Specs', 'DateTime', dir, `${stem}.json`);
      if (!existsSync(path)) fail(`missing ${path}`);
      const entries = readJsonWithBom(path);
      if (!Array.isArray(entries)) fail(`${path}: not an array`);
      entries.forEach((entry, i) => {
        const results = entry.Results ?? [];
        if (results.length === 0) {
          skipped.add('negative');
          return;
        }
        if (entry.IgnoreResolution === true || entry.IgnoreResolution === 'true') {
          skipped.add('ignoreResolution', results.length);
          return;
        }
        const rawRef = entry.Context?.ReferenceDateTime;
        let reference = null;
        if (rawRef !== undefined) {
          reference = String(rawRef).slice(0, 19);
          if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(reference)) fail(`${path}#${i}: odd reference ${rawRef}`);
          if (String(rawRef).length > 19) notes.add('truncatedReference', results.length);
        }
        const notSupported = rtNotSupported(entry);
        results.forEach((r, k) => {
          const id = `${stem}#${i}.${k}`;
          const where = `${dir}/${id}`;
          let type;
          let values;
          if (stem === 'DateTimeModel') {
            const typeName = r.TypeName ?? r.Typename;
            if (typeof typeName !== 'string') fail(`${where}: no TypeName`);
            type = typeName.replace(/^datetimeV2\./, '');
            if (!TYPES.includes(type) || type === 'holiday') {
              skipped.add('timezoneType');
              return;
            }
            const vs = r.Resolution?.values;
            if (!Array.isArray(vs) || vs.length === 0) {
              skipped.add('noValues');
              return;
            }
            if (vs.some((v) => v.timezone !== undefined || v.utcOffsetMins !== undefined)) {
              skipped.add('timezoneValue');
              return;
            }
            for (const v of vs) {
              if (v.type !== undefined && v.type !== type) notes.add('otherValueType');
            }
            values = vs.map((v) => valueObject(v.timex, v, v.Mod));
          } else {
            type = r.Type;
            if (!TYPES.includes(type) || type === 'holiday') fail(`${where}: unexpected Type ${type}`);
            const V = r.Value;
            if (!V || typeof V !== 'object') fail(`${where}: no Value`);
            const timex = V.Timex ?? V.timex;
            const future = valueObject(timex, parserResolution(where, V.FutureResolution), V.Mod, 'future');
            const past = valueObject(timex, parserResolution(where, V.PastResolution), V.Mod, 'past');
            values = [future];
            const { tense: _f, ...f } = future;
            const { tense: _p, ...p } = past;
            if (JSON.stringify(f) !== JSON.stringify(p)) {
              values.push(past);
              notes.add('futurePast');
            }
            if (future.value === undefined && future.start === undefined && future.end === undefined) {
              notes.add('emptyFuture');
            }
          }
          for (const v of values) for (const f of ['value', 'start', 'end']) if (v[f] !== undefined) checkValueFormat(where, f, v[f]);
          let ref = reference;
          if (ref === null) {
            if (values.some((v) => ['value', 'start', 'end'].some((f) => HAS_DATE.test(v[f] ?? '')))) {
              skipped.add('noReference');
              return;
            }
            ref = RT_FILL_REFERENCE[stem] ?? RT_FILL_REFERENCE_DEFAULT;
            notes.add('filledReference');
          }
          const record = { id, input: entry.Input, phrase: r.Text, reference: ref, type, values };
          if (typeof r.Text !== 'string' || !r.Text.trim()) fail(`${where}: empty Text`);
          if (!String(entry.Input).toLowerCase().includes(r.Text.trim().toLowerCase())) notes.add('phraseNotInInput', 1, id);
          if (notSupported) record.notSupported = notSupported;
          const key = JSON.stringify([record.phrase, record.reference, record.type, record.values]);
          if (seen.has(key)) {
            skipped.add('duplicate');
            return;
          }
          seen.set(key, id);
          examples.push(record);
        });
      });
    }
    const header = { source: RT_URL, commit, licence: 'MIT', language: lang };
    files.push({
      dataset: 'recognizers-text',
      lang,
      upstream: `Specs/DateTime/${dir}/{${RT_STEMS.join(',')}}.json`,
      text: renderFixture(header, examples),
      examples,
      skipped,
      notes,
    });
  }
  return files;
}

// ---------------------------------------------------------------- Duckling: Haskell tokens

const ESCAPE_NAMES = {
  NUL: 0, SOH: 1, STX: 2, ETX: 3, EOT: 4, ENQ: 5, ACK: 6, BEL: 7, BS: 8, HT: 9, LF: 10, VT: 11, FF: 12,
  CR: 13, SO: 14, SI: 15, DLE: 16, DC1: 17, DC2: 18, DC3: 19, DC4: 20, NAK: 21, SYN: 22, ETB: 23,
  CAN: 24, EM: 25, SUB: 26, ESC: 27, FS: 28, GS: 29, RS: 30, US: 31, SP: 32, DEL: 127,
};
const SIMPLE_ESCAPES = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34, "'": 39 };
const SYMBOL_CHARS = '!#$%&*+./<=>?@\\^|-~:';

// Reads one escape after the backslash at s[i]; returns [text, next index].
function readEscape(s, i, where) {
  const c = s[i];
  if (c in SIMPLE_ESCAPES) return [String.fromCodePoint(SIMPLE_ESCAPES[c]), i + 1];
  if (c === '&') return ['', i + 1];
  if (/\s/.test(c)) {
    // A string gap: backslash, white space, backslash.
    let j = i;
    while (/\s/.test(s[j])) j++;
    if (s[j] !== '\\') fail(`${where}: bad string gap`);
    return ['', j + 1];
  }
  if (c === '^') return [String.fromCodePoint(s.charCodeAt(i + 1) - 64), i + 2];
  let m;
  if ((m = /^[0-9]+/.exec(s.slice(i, i + 12)))) return [String.fromCodePoint(parseInt(m[0], 10)), i + m[0].length];
  if (c === 'x' && (m = /^[0-9a-fA-F]+/.exec(s.slice(i + 1, i + 12)))) return [String.fromCodePoint(parseInt(m[0], 16)), i + 1 + m[0].length];
  if (c === 'o' && (m = /^[0-7]+/.exec(s.slice(i + 1, i + 12)))) return [String.fromCodePoint(parseInt(m[0], 8)), i + 1 + m[0].length];
  // Longest name first (SO before SOH would be wrong).
  for (const name of Object.keys(ESCAPE_NAMES).sort((a, b) => b.length - a.length)) {
    if (s.startsWith(name, i)) return [String.fromCodePoint(ESCAPE_NAMES[name]), i + name.length];
  }
  fail(`${where}: unknown escape \\${c}`);
}

function tokenize(src, where) {
  const tokens = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = src.length;
  const advanceLines = (from, to) => {
    for (let j = from; j < to; j++) {
      if (src[j] === '\n') {
        line++;
        lineStart = j + 1;
      }
    }
  };
  while (i < n) {
    const c = src[i];
    // Any Unicode space (GHC accepts e.g. the no-break space RU/Corpus.hs has in code).
    if (/\s/u.test(c)) {
      advanceLines(i, i + 1);
      i++;
      continue;
    }
    if (src.startsWith('{-', i)) {
      let depth = 0;
      let j = i;
      while (j < n) {
        if (src.startsWith('{-', j)) {
          depth++;
          j += 2;
        } else if (src.startsWith('-}', j)) {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      if (depth !== 0) fail(`${where}: unterminated block comment at line ${line}`);
      advanceLines(i, j);
      i = j;
      continue;
    }
    if (src.startsWith('--', i)) {
      let j = i;
      while (src[j] === '-') j++;
      if (j >= n || !SYMBOL_CHARS.includes(src[j])) {
        while (i < n && src[i] !== '\n') i++;
        continue;
      }
    }
    const col = i - lineStart + 1;
    const tokLine = line;
    if (c === '"') {
      let j = i + 1;
      let text = '';
      while (true) {
        if (j >= n || src[j] === '\n') fail(`${where}: unterminated string at line ${tokLine}`);
        const d = src[j];
        if (d === '"') break;
        if (d === '\\') {
          const [t, next] = readEscape(src, j + 1, `${where}:${tokLine}`);
          advanceLines(j, next);
          text += t;
          j = next;
        } else {
          // Whole code points, so characters outside the BMP stay intact.
          const cp = src.codePointAt(j);
          text += String.fromCodePoint(cp);
          j += cp > 0xffff ? 2 : 1;
        }
      }
      tokens.push({ t: 'str', v: text, line: tokLine, col });
      i = j + 1;
      continue;
    }
    if (c === "'") {
      let j = i + 1;
      let text;
      if (src[j] === '\\') [text, j] = readEscape(src, j + 1, `${where}:${tokLine}`);
      else {
        const cp = src.codePointAt(j);
        text = String.fromCodePoint(cp);
        j += cp > 0xffff ? 2 : 1;
      }
      if (src[j] !== "'") fail(`${where}: bad character literal at line ${tokLine}`);
      tokens.push({ t: 'char', v: text, line: tokLine, col });
      i = j + 1;
      continue;
    }
    let m;
    const rest = src.slice(i, i + 200);
    if ((m = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(rest))) {
      tokens.push({ t: 'num', v: m[0], line: tokLine, col });
      i += m[0].length;
      continue;
    }
    if ((m = /^(?:[A-Z][\w']*\.)*[A-Za-z_][\w']*/u.exec(rest))) {
      tokens.push({ t: 'id', v: m[0], line: tokLine, col });
      i += m[0].length;
      continue;
    }
    if ('()[],;{}`'.includes(c)) {
      tokens.push({ t: 'sym', v: c, line: tokLine, col });
      i++;
      continue;
    }
    if (SYMBOL_CHARS.includes(c)) {
      let j = i;
      while (j < n && SYMBOL_CHARS.includes(src[j])) j++;
      tokens.push({ t: 'sym', v: src.slice(i, j), line: tokLine, col });
      i = j;
      continue;
    }
    fail(`${where}: unexpected character ${JSON.stringify(c)} at line ${tokLine}`);
  }
  return tokens;
}

const OPEN = { '(': ')', '[': ']', '{': '}' };

// Index just past the bracket that closes the one at tokens[i].
function skipGroup(tokens, i) {
  const stack = [];
  for (let j = i; j < tokens.length; j++) {
    const tok = tokens[j];
    if (tok.t !== 'sym') continue;
    if (OPEN[tok.v]) stack.push(OPEN[tok.v]);
    else if (tok.v === ')' || tok.v === ']' || tok.v === '}') {
      if (stack.pop() !== tok.v) fail(`unbalanced ${tok.v} at line ${tok.line}`);
      if (stack.length === 0) return j + 1;
    }
  }
  fail(`unclosed bracket at line ${tokens[i].line}`);
}

// Splits tokens[from, to) on commas that are not nested in brackets.
function splitTopLevel(tokens, from, to) {
  const parts = [];
  let start = from;
  for (let j = from; j < to; ) {
    const tok = tokens[j];
    if (tok.t === 'sym' && OPEN[tok.v]) {
      j = skipGroup(tokens, j);
      continue;
    }
    if (tok.t === 'sym' && tok.v === ',') {
      parts.push(tokens.slice(start, j));
      start = j + 1;
    }
    j++;
  }
  parts.push(tokens.slice(start, to));
  return parts;
}

// Top-level declarations: a token in column 1 starts one.
function declarations(tokens) {
  const starts = [];
  for (let i = 0; i < tokens.length; i++) if (tokens[i].col === 1) starts.push(i);
  const byName = new Map();
  const signatures = new Map();
  starts.forEach((start, j) => {
    const end = starts[j + 1] ?? tokens.length;
    const d = { start, end, tokens: tokens.slice(start, end) };
    const [first, second] = d.tokens;
    if (first.t !== 'id' || ['module', 'import'].includes(first.v)) return;
    if (second?.t === 'sym' && second.v === '::') {
      signatures.set(first.v, d.tokens.slice(2).map((t) => t.v).join(' '));
      return;
    }
    d.name = first.v;
    // A function defined by several clauses: the first clause stands for it.
    if (!byName.has(d.name)) byName.set(d.name, d);
  });
  for (const [name, sig] of signatures) if (byName.has(name)) byName.get(name).signature = sig;
  return byName;
}

// Body tokens after the first top-level '='.
function bindingBody(decl) {
  const eq = decl.tokens.findIndex((t) => t.t === 'sym' && t.v === '=');
  if (eq < 0) fail(`binding ${decl.name} has no '='`);
  return decl.tokens.slice(eq + 1);
}

// Number tokens in a parenthesised tuple starting at tokens[i] (a unary minus allowed).
function readTuple(tokens, i, where) {
  const end = skipGroup(tokens, i);
  const items = splitTopLevel(tokens, i + 1, end - 1).map((part) => {
    if (part.length === 1 && part[0].t === 'num') return Number(part[0].v);
    if (part.length === 2 && part[0].v === '-' && part[1].t === 'num') return -Number(part[1].v);
    if (part.length === 3 && part[0].v === '(' && part[2].v === ')' && part[1].t === 'num') return Number(part[1].v);
    if (part.length === 4 && part[0].v === '(' && part[1].v === '-' && part[2].t === 'num' && part[3].v === ')') return -Number(part[2].v);
    fail(`${where}: not a number: ${part.map((t) => t.v).join(' ')}`);
  });
  return [items, end];
}

// A context expression: a refTime (...) (offset) inside it, testContext, or a binding name.
function resolveContext(tokens, decls, defaultContext, where, depth = 0) {
  if (depth > 5) fail(`${where}: context too deep`);
  const rt = tokens.findIndex((t) => t.t === 'id' && t.v === 'refTime');
  if (rt >= 0) {
    const [dt, after] = readTuple(tokens, rt + 1, where);
    const [off] = tokens[after].v === '(' ? readTuple(tokens, after, where) : [[Number(tokens[after].v)]];
    if (dt.length !== 6 || off.length !== 1) fail(`${where}: bad refTime`);
    return { datetime: dt, offsetHours: off[0] };
  }
  if (tokens[0]?.t === 'id' && tokens[0].v === 'testContext') {
    if (!defaultContext) fail(`${where}: testContext used before it was read`);
    return defaultContext;
  }
  if (tokens[0]?.t === 'id' && decls.has(tokens[0].v)) return resolveContext(bindingBody(decls.get(tokens[0].v)), decls, defaultContext, where, depth + 1);
  fail(`${where}: cannot resolve context ${tokens.map((t) => t.v).join(' ')}`);
}

function readTestContext(root) {
  const path = join(root, 'Duckling', 'Testing', 'Types.hs');
  const decls = declarations(tokenize(readFileSync(path, 'utf8'), path));
  const decl = decls.get('testContext') ?? fail(`${path}: no testContext`);
  const ctx = resolveContext(bindingBody(decl), decls, null, path);
  // refTime/zTime/fromUTC in Duckling relabel the tuple as wall time in the offset's zone
  // (fromUTC does not convert), so the tuple is the local wall time.
  if (!bindingBody(decls.get('zTime')).map((t) => t.v).join(' ').startsWith('fromUTC ( dt datetime )')) {
    fail(`${path}: zTime changed; re-check how the reference tuple is read`);
  }
  return ctx;
}

// ---------------------------------------------------------------- Duckling: expectations

const GRAINS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
const TIME_GRAINS = new Set(['second', 'minute', 'hour']);
const pad = (x, w = 2) => String(x).padStart(w, '0');

function fmtDate([y, m, d]) {
  if (!(y >= 0 && y <= 9999)) fail(`year out of range: ${y}`);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}
function fmtDateTime(dt) {
  return `${fmtDate(dt)} ${pad(dt[3])}:${pad(dt[4])}:${pad(dt[5])}`;
}
function fmtRef(dt) {
  return `${fmtDate(dt)}T${pad(dt[3])}:${pad(dt[4])}:${pad(dt[5])}`;
}
function isMidnight(dt) {
  return dt[3] === 0 && dt[4] === 0 && dt[5] === 0;
}
function validDate([y, m, d]) {
  const t = new Date(Date.UTC(2000, m - 1, d));
  t.setUTCFullYear(y);
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}
function clipGregorian([y, m, d]) {
  const month = Math.min(12, Math.max(1, m));
  const days = new Date(Date.UTC(2000, month, 0));
  days.setUTCFullYear(y, month, 0);
  return [y, month, Math.min(days.getUTCDate(), Math.max(1, d))];
}
// Calendar arithmetic on (y, m, d) with no time zone involved.
function addGrain([y, m, d], grain) {
  const t = new Date(Date.UTC(2000, 0, 1));
  t.setUTCFullYear(y, m - 1, d);
  if (grain === 'week') t.setUTCDate(t.getUTCDate() + 7);
  else if (grain === 'month') t.setUTCMonth(t.getUTCMonth() + 1);
  else if (grain === 'quarter') t.setUTCMonth(t.getUTCMonth() + 3);
  else if (grain === 'year') t.setUTCFullYear(t.getUTCFullYear() + 1);
  else fail(`addGrain ${grain}`);
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
}
function weekday([y, m, d]) {
  const t = new Date(Date.UTC(2000, 0, 1));
  t.setUTCFullYear(y, m - 1, d);
  return t.getUTCDay();
}
function misaligned(dt, grain) {
  if (grain === 'week') return weekday(dt) !== 1;
  if (grain === 'month') return dt[2] !== 1;
  if (grain === 'quarter') return dt[2] !== 1 || (dt[1] - 1) % 3 !== 0;
  if (grain === 'year') return dt[2] !== 1 || dt[1] !== 1;
  return false;
}

// Parses the expression inside `examples ( ... )`; returns { ok, ... } or { skip: reason }.
function parseExpectation(toks, where) {
  const head = toks[0]?.v;
  const args = [];
  for (let j = 1; j < toks.length; ) {
    const tok = toks[j];
    if (tok.t === 'sym' && tok.v === '(') {
      const end = skipGroup(toks, j);
      const inner = toks.slice(j + 1, end - 1);
      if (inner[0]?.v === '(') {
        const pair = splitTopLevel(toks, j + 1, end - 1).map((p) => readTuple(p, 0, where)[0]);
        args.push({ k: 'pair', v: pair });
      } else args.push({ k: 'tuple', v: readTuple(toks, j, where)[0] });
      j = end;
    } else if (tok.t === 'id') {
      args.push({ k: 'id', v: tok.v });
      j++;
    } else if (tok.t === 'str') {
      args.push({ k: 'str', v: tok.v });
      j++;
    } else return { skip: `unrecognised expectation ${toks.map((t) => t.v).join(' ')}` };
  }
  const shape = args.map((a) => a.k).join(',');
  const grainOf = (a) => {
    const g = a.v.toLowerCase();
    if (!GRAINS.includes(g)) fail(`${where}: unknown grain ${a.v}`);
    return g;
  };
  if ((head === 'datetime' && shape === 'tuple,id') || (head === 'datetimeHoliday' && shape === 'tuple,id,str')) {
    return { kind: 'instant', start: args[0].v, grain: grainOf(args[1]), holiday: args[2]?.v };
  }
  if ((head === 'datetimeInterval' && shape === 'pair,id') || (head === 'datetimeIntervalHoliday' && shape === 'pair,id,str')) {
    const [from, to] = args[0].v;
    if (args[0].v.length !== 2) fail(`${where}: interval is not a pair`);
    return { kind: 'interval', start: from, end: to, grain: grainOf(args[1]), holiday: args[2]?.v };
  }
  if (head === 'datetimeOpenInterval' && shape === 'id,tuple,id' && ['Before', 'After'].includes(args[0].v)) {
    return { kind: 'open', direction: args[0].v, start: args[1].v, grain: grainOf(args[2]) };
  }
  return { skip: `unrecognised expectation ${head} (${shape})` };
}

// The fixture's view of an expectation: { type, grain, holiday?, values } or { skip }.
function representExpectation(x, notes, count) {
  const all = [x.start, x.end].filter(Boolean);
  for (const dt of all) {
    if (dt.length !== 6) return { skip: 'unrepresentable' };
    if (dt[0] < 0 || dt[0] > 9999) return { skip: 'bcYear' };
    if (!validDate(dt)) {
      // Duckling's tuples go through Data.Time's fromGregorian, which clips month then day
      // into range: (2013, 3, 0) is 2013-03-01, (2014, 0, 0) is 2014-01-01.
      const clipped = clipGregorian(dt);
      notes.add('clipped', count);
      dt.splice(0, 3, ...clipped);
    }
    if (!(dt[3] >= 0 && dt[3] < 24 && dt[4] >= 0 && dt[4] < 60 && dt[5] >= 0 && dt[5] < 60)) return { skip: 'unrepresentable' };
    if (!Number.isInteger(dt[5])) return { skip: 'unrepresentable' };
  }
  const timeGrain = TIME_GRAINS.has(x.grain);
  const out = { type: null, grain: x.grain };
  if (x.holiday !== undefined) out.holiday = x.holiday;
  if (x.kind === 'instant') {
    if (timeGrain) {
      out.type = 'datetime';
      out.values = [{ value: fmtDateTime(x.start) }];
    } else if (!isMidnight(x.start)) return { skip: 'unrepresentable' };
    else if (x.grain === 'day') {
      out.type = 'date';
      out.values = [{ value: fmtDate(x.start) }];
    } else {
      if (misaligned(x.start, x.grain)) notes.add('misaligned', count);
      out.type = 'daterange';
      out.values = [{ start: fmtDate(x.start), end: fmtDate(addGrain(x.start, x.grain)) }];
    }
  } else if (x.kind === 'interval') {
    if (timeGrain) {
      out.type = 'datetimerange';
      out.values = [{ start: fmtDateTime(x.start), end: fmtDateTime(x.end) }];
    } else if (!isMidnight(x.start) || !isMidnight(x.end)) return { skip: 'unrepresentable' };
    else {
      out.type = 'daterange';
      out.values = [{ start: fmtDate(x.start), end: fmtDate(x.end) }];
    }
  } else {
    let point;
    if (timeGrain) point = fmtDateTime(x.start);
    else if (!isMidnight(x.start)) return { skip: 'unrepresentable' };
    else point = fmtDate(x.start);
    out.type = timeGrain ? 'datetimerange' : 'daterange';
    out.values = [x.direction === 'After' ? { start: point, mod: 'after' } : { end: point, mod: 'before' }];
  }
  if (x.holiday !== undefined) out.type = 'holiday';
  return out;
}

function extractDuckling(root, commit) {
  const testContext = readTestContext(root);
  const offsetMinutes = testContext.offsetHours * 60;
  const files = [];
  for (const lang of DUCKLING_LANGS) {
    const rel = `Duckling/Time/${lang.toUpperCase()}/Corpus.hs`;
    const path = join(root, rel);
    if (!existsSync(path)) fail(`missing ${path}`);
    const tokens = tokenize(readFileSync(path, 'utf8'), rel);
    const decls = declarations(tokens);
    const skipped = new Counter();
    const notes = new Counter();

    // Every `examples (...) [ "..." ]` group, numbered in source order.
    const groups = [];
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i];
      if (tok.t !== 'id' || tok.v !== 'examples') continue;
      const next = tokens[i + 1];
      // Not a call: a local list named `examples` (negative corpora), or the name in
      // `import ... hiding (examples)`.
      if (next?.t === 'sym' && ['=', '::', ')', ','].includes(next.v)) continue;
      const where = `${rel}:${tok.line}`;
      if (!(next?.t === 'sym' && next.v === '(')) fail(`${where}: examples not followed by '('`);
      const exprEnd = skipGroup(tokens, i + 1);
      const list = tokens[exprEnd];
      if (!(list?.t === 'sym' && list.v === '[')) fail(`${where}: examples (...) not followed by a list`);
      const listEnd = skipGroup(tokens, exprEnd);
      const items = listEnd - exprEnd > 2 ? splitTopLevel(tokens, exprEnd + 1, listEnd - 1) : [];
      const phrases = items.map((p) => {
        if (p.length !== 1 || p[0].t !== 'str') fail(`${where}: list item is not a string literal: ${p.map((t) => t.v).join(' ')}`);
        return p[0].v;
      });
      groups.push({ n: groups.length, index: i, end: listEnd, line: tok.line, where, expr: tokens.slice(i + 2, exprEnd - 1), phrases, uses: [] });
      i = listEnd - 1;
    }

    // Which corpus (context, options) each group is tested under.
    const negative = [];
    for (const decl of decls.values()) {
      const sig = decl.signature ?? '';
      if (sig !== 'Corpus' && sig !== 'NegativeCorpus') continue;
      const body = bindingBody(decl);
      if (!(body[0]?.v === '(')) fail(`${rel}: ${decl.name} is not a (context, options, examples) tuple`);
      const tupleEnd = skipGroup(body, 0);
      const parts = splitTopLevel(body, 1, tupleEnd - 1);
      if (parts.length !== 3) fail(`${rel}: ${decl.name} is not a triple`);
      const [ctxToks, optToks, listToks] = parts;
      const context = resolveContext(ctxToks, decls, testContext, `${rel}:${decl.name}`);
      const optText = optToks.map((t) => t.v).join(' ');
      if (!/^testOptions( \{ withLatent = (True|False) \})?$/.test(optText)) fail(`${rel}: ${decl.name}: unexpected options ${optText}`);
      const latent = /withLatent = True/.test(optText);
      if (sig === 'NegativeCorpus') {
        // The list is a where-bound name; take the string literals of the where clause.
        const whereAt = body.findIndex((t, j) => j >= tupleEnd && t.t === 'id' && t.v === 'where');
        const strs = whereAt < 0 ? [] : body.slice(whereAt).filter((t) => t.t === 'str').map((t) => t.v);
        if (body.slice(whereAt).some((t) => t.t === 'id' && !['where', listToks[0]?.v].includes(t.v))) fail(`${rel}: ${decl.name}: negative list is not plain literals`);
        if (context !== testContext && JSON.stringify(context) !== JSON.stringify(testContext)) fail(`${rel}: negative corpus with its own reference time`);
        for (const s of strs) {
          if (negative.includes(s)) skipped.add('negativeDuplicate');
          else negative.push(s);
        }
        continue;
      }
      // Groups inside this binding (its where clause) and in top-level bindings it names.
      const ranges = [[decl.start, decl.end]];
      for (const t of listToks) if (t.t === 'id' && decls.has(t.v) && t.v !== decl.name) ranges.push([decls.get(t.v).start, decls.get(t.v).end]);
      for (const g of groups) {
        if (ranges.some(([a, b]) => g.index >= a && g.index < b)) g.uses.push({ corpus: decl.name, context, latent });
      }
    }

    const examples = [];
    const seen = new Map();
    const byPhrase = new Map();
    for (const g of groups) {
      const count = g.phrases.length;
      if (g.uses.length === 0) {
        skipped.add('untested', count);
        continue;
      }
      const distinct = [...new Set(g.uses.map((u) => JSON.stringify([u.context, u.latent])))];
      if (distinct.length > 1) fail(`${g.where}: group tested under different contexts/options`);
      const use = g.uses[0];
      if (use.latent) {
        skipped.add('latent', count);
        continue;
      }
      if (use.context.offsetHours !== testContext.offsetHours) {
        skipped.add('otherOffset', count);
        continue;
      }
      const parsed = parseExpectation(g.expr, g.where);
      if (parsed.skip) {
        skipped.add('unrecognised', count, `${g.where}: ${parsed.skip}`);
        continue;
      }
      const rep = representExpectation(parsed, notes, count);
      if (rep.skip) {
        skipped.add(rep.skip, count);
        continue;
      }
      const reference = fmtRef(use.context.datetime);
      if (reference !== fmtRef(testContext.datetime)) notes.add('otherReference', count, `${use.corpus} (${reference})`);
      g.phrases.forEach((phrase, k) => {
        const record = { id: `Corpus#${g.n}.${k}`, input: phrase, phrase, reference, type: rep.type, grain: rep.grain };
        if (rep.holiday !== undefined) record.holiday = rep.holiday;
        record.values = rep.values;
        const { id: _id, input: _input, ...rest } = record;
        const key = JSON.stringify(rest);
        if (seen.has(key)) {
          skipped.add('duplicate');
          return;
        }
        seen.set(key, record.id);
        const pkey = JSON.stringify([phrase, reference]);
        if (byPhrase.has(pkey)) notes.add('conflict', 1, `${JSON.stringify(phrase)} ${byPhrase.get(pkey)}/${record.id}`);
        else byPhrase.set(pkey, record.id);
        examples.push(record);
      });
    }
    const header = { source: DUCKLING_URL, commit, licence: 'BSD-3-Clause', language: lang, referenceOffsetMinutes: offsetMinutes };
    files.push({
      dataset: 'duckling',
      lang,
      upstream: rel,
      text: renderFixture(header, examples, negative),
      examples,
      negative,
      skipped,
      notes,
      groups: groups.length,
      testContext,
    });
  }
  return files;
}

// ---------------------------------------------------------------- README

function countsTable(files) {
  const cols = TYPES.filter((t) => files.some((f) => f.examples.some((e) => e.type === t)));
  const head = `| language | ${cols.join(' | ')} | total |${files[0].negative ? ' negative |' : ''}`;
  const rule = `|---|${cols.map(() => '---:').join('|')}|---:|${files[0].negative ? '---:|' : ''}`;
  const rows = files.map((f) => {
    const c = typeCounts(f.examples);
    return `| ${f.lang} | ${cols.map((t) => c.get(t) ?? 0).join(' | ')} | ${f.examples.length} |${f.negative ? ` ${f.negative.length} |` : ''}`;
  });
  return [head, rule, ...rows].join('\n');
}

// One row per language, one column per key met in any of the files.
function counterTable(files, pick) {
  const keys = [];
  for (const f of files) for (const [k] of pick(f).entries()) if (!keys.includes(k)) keys.push(k);
  if (!keys.length) return '(none)';
  const head = `| language | ${keys.map((k) => `\`${k}\``).join(' | ')} |`;
  const rule = `|---|${keys.map(() => '---:').join('|')}|`;
  const rows = files.map((f) => `| ${f.lang} | ${keys.map((k) => pick(f).get(k)).join(' | ')} |`);
  const legend = keys.map((k) => `- \`${k}\`: ${LEGEND[k]}.`);
  const details = [];
  for (const f of files) {
    for (const [k, list] of pick(f).details) details.push(`- ${f.lang} \`${k}\`: ${list.join('; ')}`);
  }
  return [head, rule, ...rows, '', ...legend, ...(details.length ? ['', ...details] : [])].join('\n');
}

function readme(rtFiles, dkFiles, opts) {
  const ctx = dkFiles[0].testContext;
  const rtEn = rtFiles.find((f) => f.lang === 'en').examples;
  const dkEn = dkFiles.find((f) => f.lang === 'en').examples;
  const ref = fmtRef(ctx.datetime);
  return `# Date-expression fixtures

\`recognizers-text/\`, \`duckling/\` and this README are generated by
\`scripts/extract-date-corpus.mjs\` from two public corpora; do not edit them by hand. One JSON
file per language; Herald's date resolver is tested and benchmarked against them. Other files
in this folder are not produced (nor read) by the script.

| folder | upstream | commit | files read | licence |
|---|---|---|---|---|
| \`recognizers-text/\` (${rtFiles.map((f) => f.lang).join(', ')}) | ${RT_URL} | \`${opts['recognizers-commit']}\` | \`Specs/DateTime/<English\\|Spanish\\|French\\|German\\|Portuguese\\|Arabic>/\` ${RT_STEMS.map((s) => `\`${s}.json\``).join(', ')} | MIT ([copy](recognizers-text/LICENSE)) |
| \`duckling/\` (${dkFiles.map((f) => f.lang).join(', ')}) | ${DUCKLING_URL} | \`${opts['duckling-commit']}\` | \`Duckling/Time/<LANG>/Corpus.hs\` (not the regional \`EN/GB\`, \`EN/US\`… corpora), \`Duckling/Testing/Types.hs\` | BSD 3-clause, © Facebook ([copy](duckling/LICENSE)) |

## Regenerating

\`\`\`sh
git clone ${RT_URL} rt.git --bare && git clone ${DUCKLING_URL} duckling.git --bare
mkdir -p /tmp/rt /tmp/duckling
git -C rt.git archive ${opts['recognizers-commit']} Specs/DateTime LICENSE | tar -x -C /tmp/rt
git -C duckling.git archive ${opts['duckling-commit']} Duckling/Time Duckling/Testing LICENSE | tar -x -C /tmp/duckling
node scripts/extract-date-corpus.mjs \\
  --recognizers /tmp/rt --recognizers-commit ${opts['recognizers-commit']} \\
  --duckling /tmp/duckling --duckling-commit ${opts['duckling-commit']}
\`\`\`

The script rewrites the fixtures, this README and both LICENSE copies (nothing else); the
same input gives byte-identical output, and it prints the per-file counts below. Nothing is sorted: records follow the upstream
files (Recognizers: ${RT_STEMS.join(', ')}, each in spec order; Duckling: source order).

## Record format

One JSON object per file, one record per line in \`examples\`. Real records from
\`recognizers-text/en.json\`:

\`\`\`json
{
  "source": "${RT_URL}",
  "commit": "${opts['recognizers-commit']}",
  "licence": "MIT",
  "language": "en",
  "examples": [
    ${[
      rtEn.find((e) => e.id.startsWith('DateTimeModel') && e.values.length === 2 && e.notSupported),
      rtEn.find((e) => !e.id.startsWith('DateTimeModel') && e.values.length === 2),
    ].map((e) => JSON.stringify(e)).join(',\n    ')}
  ]
}
\`\`\`

and from \`duckling/en.json\`, whose header adds \`"referenceOffsetMinutes": ${ctx.offsetHours * 60}\` and
which ends with a \`negative\` list after \`examples\`:

\`\`\`json
${[
  dkEn.find((e) => e.type === 'daterange' && e.grain === 'week'),
  dkEn.find((e) => e.type === 'holiday' && e.values[0].start),
  dkEn.find((e) => e.values[0].mod),
].map((e) => JSON.stringify(e)).join(',\n')}
\`\`\`

- \`id\`: Recognizers \`<spec file stem>#<entry index>.<result index>\`; Duckling
  \`Corpus#<n>.<k>\`, the n-th \`examples (...) [...]\` call in \`Corpus.hs\` (source order,
  counting every call, skipped ones too) and the k-th phrase in its list. All indices start at 0.
- \`input\`: the whole sentence (Duckling: the phrase itself, which must match in full).
- \`phrase\`: the span (\`Results[].Text\`, as written in the spec).
- \`reference\`: local wall time \`YYYY-MM-DDTHH:mm:ss\`, no offset (see below).
- \`type\`: \`date\`, \`datetime\`, \`time\`, \`daterange\`, \`datetimerange\`, \`timerange\`,
  \`duration\`, \`set\`, and for Duckling \`holiday\`; Recognizers' \`datetimeV2.\` prefix dropped.
- \`values\`: every resolution in the source's order, with \`timex\`, \`value\`, \`start\`,
  \`end\`, \`mod\` as available. A date is \`YYYY-MM-DD\`, a datetime \`YYYY-MM-DD HH:mm:ss\`, a
  time \`HH:mm:ss\`, a duration's \`value\` is seconds as in the spec; Recognizers also uses the
  literal \`"not resolved"\` (sets, some dates). Parser specs give one value from
  \`FutureResolution\` (\`"tense": "future"\`) and one from \`PastResolution\`
  (\`"tense": "past"\`), the past one left out when identical; \`Value.Mod\` goes on both.
- \`notSupported\` (Recognizers, optional): \`NotSupported\` copied, \`NotSupportedByDesign\`
  as \`"byDesign: …"\`, joined by \`"; "\` when both are present. It names the upstream
  platforms that fail the entry; the expectation is still the spec's.
- Duckling only: \`grain\` (\`second|minute|hour|day|week|month|quarter|year\`), \`holiday\`
  (the holiday's name, for \`datetimeHoliday\`/\`datetimeIntervalHoliday\`), a file-level
  \`referenceOffsetMinutes\`, and a file-level \`negative\` list: phrases from
  \`negativeCorpus\` that must produce no date.
- Exact duplicates within a file (same phrase, reference, type and values; Duckling also grain
  and holiday) are kept once, under the first id.

## Reference time

**Recognizers-Text.** Each spec entry may carry \`Context.ReferenceDateTime\`; it is used
as the local wall time, cut to seconds as the Python runner does (\`reference[0:19]\`): a few
references carry fractional seconds (\`2017-09-28T14:11:10.9626841\`) or, in Arabic, an offset
(\`2017-09-27T17:25:49.8080661+08:00\`), both dropped. Entries without one are run against the
*current clock* by every official runner: .NET
\`.NET/Microsoft.Recognizers.Text.DataDrivenTests/TestHelpers.cs\` \`GetReferenceDateTime\`
returns \`DateObject.Now\`; Java \`Java/tests/src/test/java/com/microsoft/recognizers/text/tests/TestCase.java\`
returns \`LocalDateTime.now()\`; JavaScript \`JavaScript/test/runner-datetime.js\`
\`getReferenceDate\` and Python \`Python/tests/test_runner_datetime.py\` \`get_reference_date\`
return null/None and the library falls back to \`new Date()\` / \`datetime.now()\`. There is no
fixed default. The spec files were generated by C# tests (removed in commit \`87bfb86d9\`,
2017-10-10) that parsed at \`new DateObject(2016, 11, 7)\` (date, date-period, datetime,
holiday, duration parsers) and \`new DateObject(2016, 11, 7, 16, 12, 0)\` (time-period and
datetime-period parsers); the time parser tests used today's date, which is why
\`TimeParser.json\` has no reference at all. So:

- entry without a reference whose expectation holds no calendar date (times, time ranges,
  durations, unresolved sets): kept, reference filled with \`${RT_FILL_REFERENCE_DEFAULT}\`
  (\`${RT_FILL_REFERENCE.TimePeriodParser}\` for the time-period and datetime-period parsers);
  the filled value cannot change the expectation;
- entry without a reference whose expectation holds a date: skipped and counted. Nearly all
  of these are French entries marked not supported on every platform (never run upstream);
  many were translated from English entries with other references (2017-09-28, 2018-03-14…).

**Duckling.** \`Duckling/Testing/Types.hs\`: \`testContext\` has
\`referenceTime = refTime (${ctx.datetime.join(', ')}) (${ctx.offsetHours})\`, i.e.
**${ref}** wall time at **UTC${ctx.offsetHours < 0 ? '−' : '+'}${Math.abs(ctx.offsetHours)}** (a Tuesday;
\`refTime\`/\`zTime\` use \`fromUTC\`, which relabels the tuple as local time without
converting). Every expectation tuple is a wall time in that zone, so the files carry
\`"referenceOffsetMinutes": ${ctx.offsetHours * 60}\`. English \`diffCorpus\` uses its own
context, 2013-02-15 04:30 at the same offset; its records carry that reference.

## Mapping

Recognizers-Text: model results (\`DateTimeModel.json\`) take \`type\` from \`TypeName\`
(also spelled \`Typename\` in a few entries) and values from \`Resolution.values\` (\`Mod\` →
\`mod\`; \`sourceEntity\`, \`list\` and the per-value \`type\` are dropped — with \`mod: approx\`
the per-value type can be a range under a point \`TypeName\`, e.g. "around 1pm" is a \`time\`
with a \`timerange\` value). Parser results take \`type\` from \`Type\` and the keys
\`date|time|dateTime|duration\` → \`value\`, \`start*\` → \`start\`, \`end*\` → \`end\`.
Skipped and counted: entries with no \`Results\` (negative examples), entries with
\`IgnoreResolution: true\` (all Arabic: upstream does not check their resolution),
\`datetimeV2.timezone\` results, results whose values carry a time zone, results without
\`Resolution.values\`, and the reference-less date-bearing entries above.

Duckling: \`datetime t Grain\` → \`datetime\` (second/minute/hour, \`value\` a datetime),
\`date\` (day), or \`daterange\` (week/month/quarter/year: \`start\` = t's date, \`end\` =
start + 1 grain, exclusive). \`datetimeInterval (a, b) Grain\` → \`datetimerange\`
(second/minute/hour) or \`daterange\` (day and above) with \`start\` = a and \`end\` = b;
**Duckling's interval end is exclusive** (\`"evening"\` is 18:00–00:00 the next day,
\`"from 3 to 5pm"\`-style intervals end at 18:00). \`datetimeOpenInterval After t\` →
\`{start, mod: "after"}\`, \`Before t\` → \`{end, mod: "before"}\` (Duckling's \`from\`/\`to\`).
Holiday forms give \`type: "holiday"\` with the same value shapes and the \`holiday\` name.
Skipped and counted: \`latentCorpus\` groups (only pass with \`withLatent = True\`).

## Conventions worth knowing

Checked at the commits above; the two corpora disagree, so one resolver cannot pass both
unchanged.

- Ambiguous expressions. Recognizers' model lists every candidate, past first: "monday" at
  Monday 2016-11-07 gives 2016-10-31 and 2016-11-07 (today is the future candidate). Its parser
  specs give one future and one past value: "Friday" at that Monday is 2016-11-11 / 2016-11-04.
  Duckling gives one value, ahead and never today for a bare weekday: "tuesday" and
  "next tuesday" at Tuesday 2013-02-12 are both 2013-02-19, "this monday" is 2013-02-18, and
  "Fri, Jul 18" is 2014-07-18 (the next 18 July that is a Friday).
- Parts of the day. Recognizers: morning 08:00-12:00, evening 16:00-20:00, night
  20:00-23:59:59. Duckling: morning 00:00-12:00, evening and tonight 18:00-00:00.
- Range ends. Recognizers' date ranges end exclusively ("11-2016" is 2016-11-01 to
  2016-12-01) but day parts and "rest of the day" end at 23:59:59. Duckling's ends are always
  exclusive (\`timeInterval\` in \`Duckling/Time/Types.hs\`: an open interval ends at the start
  of its last part, a closed one a grain after it).
- Grain truncation. Duckling answers at the grain of the expression: "in a day" is
  2013-02-13 04:00 at hour grain, "now" 04:30:00 at second grain.
- Durations. Recognizers counts a month as 30 days and a year as 365 ("3 years" is 94608000 s).

## Counts

Recognizers-Text, records per type:

${countsTable(rtFiles)}

Skipped or merged (results, unless said otherwise):

${counterTable(rtFiles, (f) => f.skipped)}

Kept, but worth knowing (records):

${counterTable(rtFiles, (f) => f.notes)}

Duckling, records per type (\`negative\`: phrases in the file's \`negative\` list):

${countsTable(dkFiles)}

Skipped or merged (phrases):

${counterTable(dkFiles, (f) => f.skipped)}

Kept, but worth knowing (records):

${counterTable(dkFiles, (f) => f.notes)}
`;
}

// ---------------------------------------------------------------- main

function printSummary(f, outRel) {
  const c = typeCounts(f.examples);
  const types = [...c].map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`${outRel}: ${f.examples.length} examples (${types})${f.negative ? `, ${f.negative.length} negative` : ''}, ${Buffer.byteLength(f.text)} bytes`);
  for (const [label, counter] of [['skipped', f.skipped], ['note', f.notes]]) {
    for (const [k, v] of counter.entries()) {
      const details = counter.details.get(k);
      console.log(`  ${label} ${k} ${v}: ${LEGEND[k]}${details ? ` [${details.join('; ')}]` : ''}`);
    }
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const out = resolve(opts.out ?? join(repoRoot, 'test', 'fixtures', 'dates'));
  const rtRoot = resolve(opts.recognizers);
  const dkRoot = resolve(opts.duckling);
  for (const p of [join(rtRoot, 'LICENSE'), join(dkRoot, 'LICENSE')]) if (!existsSync(p)) fail(`missing ${p}`);

  const rtFiles = extractRecognizers(rtRoot, opts['recognizers-commit']);
  const dkFiles = extractDuckling(dkRoot, opts['duckling-commit']);

  for (const [dataset, files, licence] of [
    ['recognizers-text', rtFiles, join(rtRoot, 'LICENSE')],
    ['duckling', dkFiles, join(dkRoot, 'LICENSE')],
  ]) {
    mkdirSync(join(out, dataset), { recursive: true });
    copyFileSync(licence, join(out, dataset, 'LICENSE'));
    for (const f of files) {
      JSON.parse(f.text); // never write a file that is not JSON
      writeFileSync(join(out, dataset, `${f.lang}.json`), f.text);
      printSummary(f, `${dataset}/${f.lang}.json`);
    }
  }
  writeFileSync(join(out, 'README.md'), readme(rtFiles, dkFiles, opts));
  console.log(`wrote ${rtFiles.length + dkFiles.length} fixtures, README.md and 2 LICENSE files under ${out}`);
}

main();
