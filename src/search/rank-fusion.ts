/** Reciprocal rank fusion's constant: the usual 60, so a first place counts, but not overwhelmingly. */
const RRF_K = 60;

/** One ranked list from one retrieval (a leg for one phrasing), best first. */
export type RankedList = ReadonlyArray<string>;

/**
 * Reciprocal rank fusion (Cormack et al., 2009): each list gives an item 1/(k + rank), the
 * scores add up, and items found by several legs or phrasings rise. Scores of different
 * kinds (ts_rank, trigram similarity, cosine) never need to be put on one scale.
 */
export function fuseRankings(lists: RankedList[], k = RRF_K): Array<{ key: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((key, index) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores.entries()].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
}
