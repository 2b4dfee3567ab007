import { describe, expect, it } from 'vitest';
import { parseTwilioStatus, statusRank } from '../../src/outbox/outbound-status.js';

describe('outbound statuses', () => {
  it("maps Twilio's status names, in any case, and refuses Herald-internal or unknown ones", () => {
    expect(parseTwilioStatus('queued')).toBe('queued');
    expect(parseTwilioStatus(' Delivered ')).toBe('delivered');
    expect(parseTwilioStatus('READ')).toBe('read');
    expect(parseTwilioStatus('partially_delivered')).toBe('delivered');
    for (const name of ['accepted', 'scheduled', 'sending', 'sent', 'undelivered', 'failed', 'canceled']) {
      expect(parseTwilioStatus(name)).toBe(name);
    }
    for (const name of ['pending', 'dispatching', 'undeliverable', 'receiving', 'received', '', 'teleported']) {
      expect(parseTwilioStatus(name)).toBeUndefined();
    }
  });

  it('ranks the life of a message forward, with read after delivered', () => {
    const order = ['pending', 'dispatching', 'accepted', 'scheduled', 'queued', 'sending', 'sent', 'delivered', 'read'] as const;
    for (const [index, status] of order.entries()) {
      if (index > 0) expect(statusRank[status]).toBeGreaterThan(statusRank[order[index - 1]!]);
    }
  });

  it('gives every terminal outcome the same rank, so the first one to arrive stands', () => {
    const terminal = ['delivered', 'undelivered', 'failed', 'canceled', 'undeliverable'] as const;
    expect(new Set(terminal.map((status) => statusRank[status])).size).toBe(1);
    expect(statusRank.sent).toBeLessThan(statusRank.failed);
  });
});
