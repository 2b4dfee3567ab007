import { AllowedHosts, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { createOutboundHttp, type OutboundHttp } from '../../src/net/outbound-fetch.js';
import { OutboundPolicy, type OutboundAccess, type HostResolver } from '../../src/net/outbound-policy.js';

/** CONNECT_ALLOWED_HOSTS for the tests' own servers (Radicale, Dovecot, the SMTP receiver), all on this machine. */
export const LOOPBACK_ALLOWED = '127.0.0.0/8,::1';

/** The outbound policy with this machine allowed, as a self-hoster's CONNECT_ALLOWED_HOSTS would. */
export function loopbackPolicy(resolver?: HostResolver): OutboundPolicy {
  const parsed = parseAllowedHosts(LOOPBACK_ALLOWED);
  if (!parsed.ok) throw new Error('bad test allowance');
  return new OutboundPolicy({ allowedHosts: new AllowedHosts(parsed.entries), resolver });
}

/** A user's connection to the tests' servers on this machine. */
export const localOutbound: OutboundAccess = { policy: loopbackPolicy(), trust: 'user' };

/** HTTP to the tests' servers on this machine (the CalDAV provider's requests). */
export function localHttp(timeoutMs = 5000): OutboundHttp {
  return createOutboundHttp(localOutbound.policy, { trust: 'user', timeoutMs });
}

/** A resolver for tests: the names given map to their addresses; any other name does not exist. */
export function mappedResolver(names: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = names[hostname.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}
