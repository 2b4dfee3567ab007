import type { OutboundHttp } from './outbound-fetch.js';
import { OutboundRefusedError } from './outbound-policy.js';

/**
 * A fetch under the outbound policy that remembers what happened, for clients (tsdav's
 * discovery) that try several URLs and swallow some failures: the last HTTP status seen,
 * the first refusal by the policy, and the first network error. The caller then says why
 * nothing worked, with the policy's own message when it was the policy.
 */
export function trackedFetch(http: OutboundHttp) {
  const seen: { lastStatus?: number; refusal?: OutboundRefusedError; networkError?: unknown } = {};
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    try {
      const response = await http.fetch(input, init);
      seen.lastStatus = response.status;
      return response;
    } catch (error) {
      if (error instanceof OutboundRefusedError) seen.refusal ??= error;
      else seen.networkError ??= error;
      throw error;
    }
  };
  return { fetch, seen };
}
