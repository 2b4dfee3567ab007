import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Logger } from '../logging/logger.js';
import { ToolError } from '../shared/errors.js';
import { classifyAddress, type AddressKind } from './address-ranges.js';
import { AllowedHosts, canonicalHost } from './allowed-hosts.js';

/**
 * Who pointed Herald at an address. A user (a connect form) may reach only the public
 * internet and what CONNECT_ALLOWED_HOSTS allows; the operator (`npm run accounts`) owns
 * the network and may reach anything, and a connection the operator made keeps that trust.
 */
export type OutboundTrust = 'user' | 'operator';

/** One address a host resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Turns a host name into its addresses (the system resolver; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo, as every other connection of this machine resolves names (hosts file included). */
const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, order: 'verbatim' })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

/**
 * What a user is told for every address Herald will not connect to, whatever the reason
 * and whatever listens there: nothing was contacted, so nothing about the network can be
 * learnt from it (a name that does not exist is answered the same, so internal names
 * cannot be probed either).
 */
export const OUTBOUND_REFUSED_MESSAGE =
  'Herald cannot connect to that address: it does not lead to a server on the public internet (the name does not exist, or it is a private, local or reserved address). Check the address. A server on your own network can be allowed by whoever runs this Herald.';

/** What a user is told for a plain http:// address that would carry their password unencrypted. */
export const PLAIN_HTTP_REFUSED_MESSAGE = "Use the server's https:// address: Herald does not send passwords over an unencrypted connection.";

/** Why an address was refused (for logs; the user is told {@link OUTBOUND_REFUSED_MESSAGE}). */
export type RefusalReason = Exclude<AddressKind, 'public'> | 'no such host' | 'not a host' | 'plain http';

/** An address Herald would not connect to. Nothing was contacted. */
export class OutboundRefusedError extends ToolError {
  constructor(readonly reason: RefusalReason) {
    super(reason === 'plain http' ? PLAIN_HTTP_REFUSED_MESSAGE : OUTBOUND_REFUSED_MESSAGE);
  }
}

/** A policy and on whose behalf it is applied: what a connection to a user-chosen server carries. */
export interface OutboundAccess {
  policy: OutboundPolicy;
  trust: OutboundTrust;
}

/** A host checked and resolved: connect to `addresses` (never resolve `host` again). */
export interface OutboundTarget {
  /** The canonical host: the TLS server name and the HTTP Host. */
  host: string;
  port: number;
  /** Every address the name resolved to, all checked; in the resolver's order. */
  addresses: ResolvedAddress[];
  /** The operator vouched for this destination (CONNECT_ALLOWED_HOSTS, or an operator's connection): plain http is allowed. */
  vouched: boolean;
}

/** What the policy needs. */
export interface OutboundPolicyOptions {
  allowedHosts?: AllowedHosts | undefined;
  resolver?: HostResolver | undefined;
  logger?: Logger | undefined;
}

/**
 * The one rule for every connection a user can point somewhere (CalDAV, IMAP, SMTP, and any
 * later one): resolve the name once, refuse it unless every address it resolves to is on
 * the public internet (or the operator allowed it), and connect to exactly the addresses
 * checked, so DNS cannot answer the check one way and the connection another. See
 * src/net/README.md.
 */
export class OutboundPolicy {
  private readonly allowedHosts: AllowedHosts;
  private readonly resolver: HostResolver;

  constructor(private readonly options: OutboundPolicyOptions = {}) {
    this.allowedHosts = options.allowedHosts ?? new AllowedHosts();
    this.resolver = options.resolver ?? systemResolver;
  }

  /**
   * Resolves and checks `host:port` for a connection on behalf of `trust`. A refusal
   * contacts nothing (beyond the resolver). Temporary resolver failures (EAI_AGAIN…) are
   * thrown as they are: the server may be fine, the name could not be looked up now.
   */
  async check(host: string, port: number, trust: OutboundTrust): Promise<{ ok: true; target: OutboundTarget } | { ok: false; error: OutboundRefusedError }> {
    const canonical = canonicalHost(host);
    if (!canonical) return this.refuse('not a host');
    const vouched = trust === 'operator' || this.allowedHosts.allowsName(canonical, port);
    let addresses: ResolvedAddress[];
    if (isIP(canonical)) addresses = [{ address: canonical, family: isIP(canonical) === 6 ? 6 : 4 }];
    else if (!vouched && (canonical === 'localhost' || canonical.endsWith('.localhost'))) return this.refuse('loopback');
    else {
      try {
        addresses = await this.resolver(canonical);
      } catch (error) {
        if (['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA'].includes((error as { code?: string }).code ?? '')) return this.refuse('no such host');
        throw error;
      }
      if (addresses.length === 0) return this.refuse('no such host');
    }
    if (!vouched) {
      for (const { address } of addresses) {
        const kind = classifyAddress(address);
        if (kind !== 'public' && !this.allowedHosts.allowsAddress(address, port)) return this.refuse(kind);
      }
    }
    const allowedByNetwork = addresses.every(({ address }) => this.allowedHosts.allowsAddress(address, port));
    return { ok: true, target: { host: canonical, port, addresses, vouched: vouched || allowedByNetwork } };
  }

  private refuse(reason: RefusalReason): { ok: false; error: OutboundRefusedError } {
    this.options.logger?.warn({ reason }, 'outbound connection refused: not a public address');
    return { ok: false, error: new OutboundRefusedError(reason) };
  }
}

/**
 * A `lookup` for net/tls/http that answers the checked addresses and never asks DNS: the
 * connection goes where the check said, with the host name kept for TLS (SNI and the
 * certificate) and the HTTP Host header.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : undefined;
    const candidates = family ? addresses.filter((entry) => entry.family === family) : addresses;
    setImmediate(() => {
      if (candidates.length === 0) {
        callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      if (options.all) callback(null, candidates.map((entry) => ({ address: entry.address, family: entry.family })));
      else callback(null, candidates[0]!.address, candidates[0]!.family);
    });
  };
}
