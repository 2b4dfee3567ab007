import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { costOfUsage } from '../../src/model/model-cost.js';
import { conservativeProfile, defaultFallbacks, isKnownModel, modelProfiles, profileFor } from '../../src/model/model-profiles.js';

/** The model profile table (issue 7): one place for what each family accepts and costs. */
describe('model profiles', () => {
  it('knows every family by the name the SDK lists, and dated snapshots by their family', () => {
    // The SDK's Model union is the reference for names; a typo here would not compile.
    const sdkNames: Anthropic.Model[] = ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5', 'claude-sonnet-5', 'claude-opus-5', 'claude-sonnet-4-6', 'claude-opus-4-6', 'claude-haiku-4-5', 'claude-sonnet-4-5'];
    expect(modelProfiles.map((profile) => profile.family).sort()).toEqual([...sdkNames].sort());
    expect(profileFor('claude-haiku-4-5-20251001').family).toBe('claude-haiku-4-5');
    expect(isKnownModel('claude-sonnet-4-5-20250929')).toBe(true);
  });

  it('gives the 5.x generation no sampling parameters, no forced tool choice, no prefill, only adaptive thinking, and effort', () => {
    for (const profile of modelProfiles.filter((candidate) => /^claude-[a-z]+-5(-5)?$/.test(candidate.family))) {
      expect(profile.accepts).toEqual({ samplingParameters: false, forcedToolChoice: false, effort: true, assistantPrefill: false, thinkingModes: ['adaptive'] });
      expect(profile.thinksByDefault).toBe(true);
    }
  });

  it('gives an unknown name the most conservative profile', () => {
    expect(profileFor('claude-nova-9')).toBe(conservativeProfile);
    expect(isKnownModel('claude-nova-9')).toBe(false);
    expect(conservativeProfile.accepts).toEqual({ samplingParameters: false, forcedToolChoice: false, effort: false, assistantPrefill: false, thinkingModes: [] });
    const highestInput = Math.max(...modelProfiles.filter((profile) => /-5-5$/.test(profile.family)).map((profile) => profile.prices.input));
    expect(conservativeProfile.prices.input).toBeGreaterThanOrEqual(highestInput);
  });

  it('falls back to the previous generation of the same tier by default', () => {
    expect(defaultFallbacks('claude-sonnet-5-5')).toEqual(['claude-sonnet-4-6']);
    expect(defaultFallbacks('claude-haiku-5-5')).toEqual(['claude-haiku-4-5']);
    expect(defaultFallbacks('claude-haiku-4-5')).toEqual([]);
    expect(defaultFallbacks('claude-nova-9')).toEqual([]);
  });
});

describe('costOfUsage', () => {
  const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens });

  it('prices input, output, cache writes and cache reads from the profile (USD per million tokens)', () => {
    // Sonnet 5.5: $2 in, $10 out, $2.50 cache write, $0.10 cache read.
    expect(costOfUsage('claude-sonnet-5-5', usage(1_000_000, 0))).toBeCloseTo(2, 9);
    expect(costOfUsage('claude-sonnet-5-5', usage(500, 100, 2000, 1000))).toBeCloseTo((500 * 2 + 100 * 10 + 2000 * 0.1 + 1000 * 2.5) / 1e6, 12);
    // Haiku 5.5: $0.10 / $0.50, against Haiku 4.5's $1 / $5.
    expect(costOfUsage('claude-haiku-5-5', usage(1000, 100))).toBeCloseTo((1000 * 0.1 + 100 * 0.5) / 1e6, 12);
    expect(costOfUsage('claude-haiku-4-5', usage(1000, 100))).toBeCloseTo((1000 * 1 + 100 * 5) / 1e6, 12);
  });

  it('bills a Haiku 5.5 prompt over 100k tokens at the long-prompt prices', () => {
    expect(costOfUsage('claude-haiku-5-5', usage(100_000, 1000))).toBeCloseTo((100_000 * 0.1 + 1000 * 0.5) / 1e6, 12);
    expect(costOfUsage('claude-haiku-5-5', usage(60_000, 1000, 50_000))).toBeCloseTo((60_000 * 0.5 + 1000 * 2.5 + 50_000 * 0.05) / 1e6, 12);
  });
});
