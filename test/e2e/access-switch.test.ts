import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessService } from '../../src/access/access-service.js';
import { strangerReplies } from '../../src/access/access-replies.js';
import { systemClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const OWNER = '+12125550100';
const REGULAR = '+12125550301';
const REVOKED = '+12125550302';
const twimlMessage = (text: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${text.replace(/'/g, '&apos;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</Message></Response>`;

/**
 * A deployment that started open and becomes invite-only: its users are not silently locked
 * out. Start-up says how many would be, and `accounts allow --existing` (the service call it
 * makes) lets them back in, keeping numbers an owner revoked out.
 */
describe('switching from open to invite mode', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('warns at start-up about users who would be strangers, and allow --existing brings them back (revoked stay out)', async () => {
    const open = await HeraldHarness.start({ database, env: { ACCESS_MODE: 'open' } });
    try {
      open.anthropic.enqueue({ text: 'Hello!' }, { text: 'Hi there.' });
      expect(await open.exchange(REGULAR, 'hi')).toBe('Hello!');
      expect(await open.exchange(REVOKED, 'hi')).toBe('Hi there.');
    } finally {
      await open.close();
    }
    // An owner had revoked this number while the deployment was open (it had no effect then).
    await database.prisma.accessGrant.create({ data: { phone: REVOKED, source: 'owner', revokedAt: new Date() } });

    const invite = await HeraldHarness.start({ database, env: { ACCESS_MODE: 'invite', OWNER_PHONES: OWNER } });
    try {
      const warning = invite.logs.lines.find((line) => line.msg?.includes('allow --existing'));
      expect(warning, invite.logs.text()).toMatchObject({ level: 40, users: 2 });

      expect((await invite.inbound({ from: REGULAR, body: 'are you there?' })).body).toBe(twimlMessage(strangerReplies.private));

      const access = new AccessService(database.prisma, systemClock, invite.config.access);
      expect(await access.allowExistingUsers()).toBe(1);
      expect(await access.allowExistingUsers()).toBe(0);
      expect(await access.usersWithoutAccess()).toBe(1);

      invite.anthropic.enqueue({ text: 'Welcome back.' });
      expect(await invite.exchange(REGULAR, 'hello again')).toBe('Welcome back.');
      expect((await invite.inbound({ from: REVOKED, body: 'me too?' })).body).toBe(twimlMessage(strangerReplies.private));
      expect(invite.anthropic.requests).toHaveLength(1);
      expect(await database.prisma.accessGrant.findUnique({ where: { phone: REVOKED } })).toMatchObject({ revokedAt: expect.any(Date) });
    } finally {
      await invite.close();
    }
  });
});
