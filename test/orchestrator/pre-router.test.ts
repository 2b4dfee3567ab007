/** The pattern-matching pre-router (seed 003): trigger phrases in English and Hebrew score agents. */
import { describe, expect, it } from 'vitest';
import { routeByPatterns, routingHintsSection } from '../../src/orchestrator/pre-router.js';
import { testRegistry } from './support/index.js';

const { registry } = testRegistry();

describe('routeByPatterns', () => {
  it.each([
    ['Please jot down: buy milk', 'notes-agent', ['jot down']],
    ['Can you LOOK UP the train times?', 'lookup-agent', ['look up']],
    ['explain quantum physics', 'general-agent', ['explain']],
    ['תרשום לי פתק: לקנות חלב', 'notes-agent', ['פתק', 'תרשום']],
    ['חפש לי את מספר הטלפון', 'lookup-agent', ['חפש']],
  ])('scores "%s" for %s', (message, agent, matched) => {
    const [best] = routeByPatterns(message, registry);
    expect(best).toMatchObject({ agent, matched });
  });

  it('matches Hebrew triggers with a prefix attached (ו, ש, ה…)', () => {
    expect(routeByPatterns('והפתק הזה חשוב', registry)[0]).toMatchObject({ agent: 'notes-agent', matched: ['פתק'] });
  });

  it('matches English triggers only as whole words, across punctuation', () => {
    expect(routeByPatterns('my notebook is full', registry)).toEqual([]);
    expect(routeByPatterns('a footnote', registry)).toEqual([]);
    expect(routeByPatterns('note: milk!', registry)[0]).toMatchObject({ agent: 'notes-agent', matched: ['note'] });
  });

  it('ranks by matches, breaks ties by priority, and keeps the top candidates', () => {
    const both = routeByPatterns('find the note and jot down the result', registry);
    expect(both.map((hint) => hint.agent)).toEqual(['notes-agent', 'lookup-agent']);
    expect(both[0]!.score).toBeCloseTo(2.03);
    const tie = routeByPatterns('find the note', registry);
    expect(tie.map((hint) => hint.agent)).toEqual(['notes-agent', 'lookup-agent']);
    expect(routeByPatterns('find the note and explain', registry, 1)).toHaveLength(1);
  });

  it('returns nothing when no trigger matches', () => {
    expect(routeByPatterns('hello, how are you?', registry)).toEqual([]);
    expect(routeByPatterns('', registry)).toEqual([]);
    expect(routeByPatterns('שלום, מה שלומך?', registry)).toEqual([]);
  });
});

describe('routingHintsSection', () => {
  it('is absent when nothing matched', () => {
    expect(routingHintsSection([])).toBeUndefined();
  });

  it('lists each hint with what matched, quotes removed', () => {
    expect(routingHintsSection([{ agent: 'notes-agent', score: 1.03, matched: ['jot "down"'] }])).toBe(
      '<routing_hints>\nThe wording suggests these agents (a hint, not a rule):\n  <hint agent="notes-agent" matched="jot down"/>\n</routing_hints>',
    );
  });
});
