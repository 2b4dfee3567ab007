/**
 * `npm run bench -- dates`: how well, and how fast, Herald reads date phrases (src/time/),
 * scored on the public corpora in test/fixtures/dates/ (Recognizers-Text's specifications,
 * Duckling's corpus, Herald's Hebrew set) by the rules of test/time/date-corpus.ts, beside two
 * libraries adapted to the same rules (bench/support/date-candidates.ts): chrono-node's locale
 * parsers and Microsoft Recognizers-Text's JavaScript port.
 *
 * Printed:
 * - Herald's outcomes (exact / convention / ambiguous / none / wrong) for every file and set
 *   (single instants, holidays, spans);
 * - the same for each library on the instants and holidays, in the languages it reads;
 * - one table per language with the three side by side: "right" is exact or a named Herald
 *   convention, "wrong" an answer given with confidence that is neither;
 * - the time to resolve one phrase: every phrase of every file is run once to warm up, then
 *   each is timed on its own (performance.now, repeated for at least ~2 ms or 3 runs, the
 *   median kept), and the p50 / p99 over the phrases is reported.
 *
 * Targets (the corpus test's, test/time/corpus.test.ts): on Recognizers-Text's instants right
 * ≥ 90 % in English, ≥ 75 % in Spanish, French, German and Portuguese, ≥ 60 % in Arabic;
 * Duckling's Russian instants ≥ 60 %; the Hebrew set (instants and spans) ≥ 90 %; at most 2 %
 * wrong on every file's instants; Herald's p99 ≤ 2 ms per phrase. No database is used.
 */
import { performance } from 'node:perf_hooks';
import type { TimeLanguage } from '../src/time/languages/index.js';
import { heraldResolver, loadCorpus, rightTargets, scoreCorpus, scoreExample, tally, wrongTarget, type CorpusFile, type Outcome, type Resolver, type Scored } from '../test/time/date-corpus.js';
import type { Benchmark, BenchmarkContext, BenchmarkOutcome, Check } from './support/benchmark.js';
import { chronoLanguages, chronoResolver, recognizersLanguages, recognizersResolver } from './support/date-candidates.js';
import { banner, fixed, heading, percent, percentile, table, type Cell } from './support/report.js';

const FILES = [
  ...['en', 'es', 'fr', 'de', 'pt', 'ar'].map((language) => `recognizers-text/${language}.json`),
  ...['en', 'es', 'fr', 'de', 'pt', 'ru', 'ar', 'he'].map((language) => `duckling/${language}.json`),
  'herald-hebrew.json',
];
const LANGUAGES: TimeLanguage[] = ['en', 'es', 'fr', 'de', 'pt', 'ar', 'ru', 'he'];
const SETS: Array<Scored['set']> = ['instants', 'holidays', 'spans'];
const CANDIDATE_SETS: Array<Scored['set']> = ['instants', 'holidays'];
const OUTCOMES: Outcome[] = ['exact', 'convention', 'ambiguous', 'none', 'wrong'];

const RIGHT_TARGETS = rightTargets;
const WRONG_TARGET = wrongTarget;
const P99_TARGET_MICROS = 2000;
/** Each phrase is timed for at least this long (or MIN_RUNS runs), at most MAX_RUNS runs. */
const TIMING_BUDGET_MICROS = 2000;
const MIN_RUNS = 3;
const MAX_RUNS = 25;

interface Candidate {
  name: string;
  resolver: Resolver;
  languages: Set<TimeLanguage> | undefined;
}

const CANDIDATES: Candidate[] = [
  { name: 'chrono-node', resolver: chronoResolver, languages: chronoLanguages },
  { name: 'Recognizers', resolver: recognizersResolver, languages: recognizersLanguages },
];

/** One resolver call as the scorer made it, to be replayed for timing. */
interface Call {
  args: Parameters<Resolver>;
}

/** A resolver that also records each call it answers. */
function recording(resolver: Resolver, calls: Call[]): Resolver {
  return (...args) => {
    calls.push({ args });
    return resolver(...args);
  };
}

const label = (file: string): string => file.replace(/\.json$/, '');

/** "85.2% (123)" for one outcome of a tally. */
function share(count: number, total: number): string {
  return total === 0 ? '-' : `${percent(count / total, 1)} (${count})`;
}

function outcomeRow(file: string, set: string, scored: Scored[]): Cell[] {
  const counts = tally(scored);
  return [label(file), set, counts.total, ...OUTCOMES.map((outcome) => share(counts[outcome], counts.total))];
}

/** The median time of one call, in µs, run at least ~TIMING_BUDGET_MICROS or MIN_RUNS times. */
function timeCall(resolver: Resolver, call: Call): number {
  const samples: number[] = [];
  let spent = 0;
  while (samples.length < MAX_RUNS && (samples.length < MIN_RUNS || spent < TIMING_BUDGET_MICROS)) {
    const started = performance.now();
    resolver(...call.args);
    const micros = (performance.now() - started) * 1000;
    samples.push(micros);
    spent += micros;
  }
  return percentile(samples, 0.5);
}

/** Warms up on every call once, then times each: p50 / p99 over the phrases, in µs. */
function timeResolver(resolver: Resolver, calls: Call[]): { phrases: number; p50: number; p99: number; max: number } {
  for (const call of calls) resolver(...call.args);
  const perPhrase = calls.map((call) => timeCall(resolver, call));
  return { phrases: calls.length, p50: percentile(perPhrase, 0.5), p99: percentile(perPhrase, 0.99), max: Math.max(...perPhrase) };
}

export const datesBenchmark: Benchmark = {
  name: 'dates',
  description: 'Date phrases on the public corpora: Herald vs chrono-node vs Recognizers-Text, right/wrong and µs per phrase (no database)',
  async run(context) {
    // chrono-node does its day arithmetic on Dates in the process's zone: across that zone's DST
    // changes a midnight reference slips by an hour and a day ("the day after tomorrow" is a day
    // short in America/New_York on 2016-11-07). Run in UTC, as a server does, for figures that do
    // not depend on the machine; Herald and Recognizers give the same answers in any zone.
    const zone = process.env.TZ;
    process.env.TZ = 'UTC';
    try {
      return compare(context);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  },
};

function compare({ print }: BenchmarkContext): BenchmarkOutcome {
  print(banner('Dates: Herald\'s resolver on the public corpora, beside chrono-node and Recognizers-Text'));
  const checks: Check[] = [];

  // Scoring: Herald on everything; each candidate on the instants and holidays of its languages.
  const corpora = new Map<string, CorpusFile>(FILES.map((file) => [file, loadCorpus(file)]));
  const heraldCalls: Call[] = [];
  const herald = new Map<string, Scored[]>();
  for (const [file, corpus] of corpora) herald.set(file, scoreCorpus(corpus, recording(heraldResolver, heraldCalls)));
  const candidateScores = new Map<string, Map<string, Scored[]>>();
  const candidateCalls = new Map<string, Call[]>();
  for (const candidate of CANDIDATES) {
    const calls: Call[] = [];
    const byFile = new Map<string, Scored[]>();
    for (const [file, corpus] of corpora) {
      if (candidate.languages && !candidate.languages.has(corpus.language)) continue;
      const resolver = recording(candidate.resolver, calls);
      const scored = herald
        .get(file)!
        .filter((item) => CANDIDATE_SETS.includes(item.set))
        .flatMap((item) => scoreExample(item.example, corpus.language, corpus.zone ?? 'UTC', resolver) ?? []);
      byFile.set(file, scored);
    }
    candidateScores.set(candidate.name, byFile);
    candidateCalls.set(candidate.name, calls);
  }

  const outcomeHeaders = ['file', 'set', 'n', ...OUTCOMES];
  print(heading('Herald: every file and set'));
  print(table(outcomeHeaders, FILES.flatMap((file) => SETS.map((set) => ({ set, scored: herald.get(file)!.filter((item) => item.set === set) })).filter(({ scored }) => scored.length > 0).map(({ set, scored }) => outcomeRow(file, set, scored)))));
  for (const candidate of CANDIDATES) {
    const byFile = candidateScores.get(candidate.name)!;
    print(heading(`${candidate.name}: instants and holidays${candidate.languages ? ` (reads ${[...candidate.languages].join(', ')})` : ''}`));
    const rows = [...byFile].flatMap(([file, scored]) => CANDIDATE_SETS.map((set) => ({ set, scored: scored.filter((item) => item.set === set) })).filter(({ scored: inSet }) => inSet.length > 0).map(({ set, scored: inSet }) => outcomeRow(file, set, inSet)));
    print(table(outcomeHeaders, rows));
  }

  // Side by side, one table per language.
  const rightWrong = (scored: Scored[] | undefined): Cell[] => {
    if (!scored) return ['-', '-'];
    const counts = tally(scored);
    return [percent(counts.right, 1), percent(counts.wrongShare, 1)];
  };
  for (const language of LANGUAGES) {
    const rows: Cell[][] = [];
    for (const file of FILES.filter((name) => corpora.get(name)!.language === language)) {
      for (const set of CANDIDATE_SETS) {
        const mine = herald.get(file)!.filter((item) => item.set === set);
        if (mine.length === 0) continue;
        const theirs = CANDIDATES.map((candidate) => candidateScores.get(candidate.name)!.get(file)?.filter((item) => item.set === set));
        rows.push([label(file), set, mine.length, ...rightWrong(mine), ...theirs.flatMap((scored) => rightWrong(scored))]);
      }
    }
    print(heading(`${language}: right / wrong side by side`));
    print(table(['file', 'set', 'n', 'Herald right', 'wrong', ...CANDIDATES.flatMap((candidate) => [`${candidate.name} right`, 'wrong'])], rows));
  }

  // Time per phrase.
  print(heading('time to resolve one phrase (µs; median of its runs, after a warm-up pass)'));
  const timings: Array<{ name: string; timing: ReturnType<typeof timeResolver> }> = [{ name: 'Herald (every set)', timing: timeResolver(heraldResolver, heraldCalls) }];
  for (const candidate of CANDIDATES) timings.push({ name: `${candidate.name} (instants, holidays)`, timing: timeResolver(candidate.resolver, candidateCalls.get(candidate.name)!) });
  print(table(['resolver', 'phrases', 'p50 µs', 'p99 µs', 'max µs'], timings.map(({ name, timing }) => [name, timing.phrases, fixed(timing.p50, 1), fixed(timing.p99, 1), fixed(timing.max, 0)])));

  // Checks: Herald's targets.
  for (const target of RIGHT_TARGETS) {
    const counts = tally(herald.get(target.file)!.filter((item) => target.sets.includes(item.set)));
    checks.push({ name: `${label(target.file)} ${target.sets.join('+')}: right`, target: `≥ ${percent(target.right)}`, measured: `${percent(counts.right, 1)} of ${counts.total}`, pass: counts.right >= target.right, kind: 'target' });
  }
  for (const file of FILES) {
    const counts = tally(herald.get(file)!.filter((item) => item.set === 'instants'));
    checks.push({ name: `${label(file)} instants: wrong`, target: `≤ ${percent(WRONG_TARGET)}`, measured: `${percent(counts.wrongShare, 1)} (${counts.wrong} of ${counts.total})`, pass: counts.wrongShare <= WRONG_TARGET, kind: 'target' });
  }
  const heraldTiming = timings[0]!.timing;
  checks.push({ name: 'Herald p99 per phrase', target: `≤ ${P99_TARGET_MICROS} µs`, measured: `${fixed(heraldTiming.p99, 0)} µs (p50 ${fixed(heraldTiming.p50, 0)} µs)`, pass: heraldTiming.p99 <= P99_TARGET_MICROS, kind: 'target' });
  return { checks };
}
