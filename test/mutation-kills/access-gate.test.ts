import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccessGate, MAX_FAILED_JOINS } from '../../src/access/access-gate.js';
import { strangerReplies, strangerRepliesFor } from '../../src/access/access-replies.js';
import { AccessService, type AccessSettings } from '../../src/access/access-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The door at its edges (issue 32 item 8), on real Postgres without the webhook in front: the
 * notice exactly a day later and a millisecond before it, the fifth failed JOIN and the fourth,
 * a code at its expiry instant, the newcomer limit at its count and one below.
 */
const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const OWNER = '+12125550100';
const key = Buffer.from('k'.repeat(32));
const hashOf = (phone: string) => createHmac('sha256', key).update(phone).digest('hex');

describe('the access gate', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2030-03-01T12:00:00Z');
  let phoneCounter = 0;
  /** A number nobody has used in this file yet. */
  const newPhone = () => `+1415555${String(1000 + (phoneCounter += 1))}`;

  beforeAll(async () => {
    database = await createTestDatabase(4);
  });
  beforeEach(() => {
    clock.set('2030-03-01T12:00:00Z');
  });
  afterAll(async () => {
    await database.drop();
  });

  function gate(settings: Partial<AccessSettings> = {}) {
    const access = new AccessService(database.prisma, clock, { mode: 'invite', ownerPhones: [OWNER], newUsersPerHour: 3, ...settings });
    return { access, gate: new AccessGate(database.pool, access, clock, key) };
  }
  const notice = (phone: string) => database.prisma.strangerNotice.findUnique({ where: { phoneHash: hashOf(phone) } });
  const createUser = (phone: string, createdAt = clock.now()) => database.prisma.user.create({ data: { phone, timezone: 'UTC', createdAt, updatedAt: createdAt } });

  describe('invite mode', () => {
    it('serves an owner and a granted number; a known user without a grant is a stranger', async () => {
      const { access, gate: door } = gate();
      expect(await door.check(OWNER, 'hello')).toEqual({ kind: 'serve' });
      const granted = newPhone();
      await access.allow(granted, 'operator');
      expect(await door.check(granted, 'hello')).toEqual({ kind: 'serve' });
      const known = newPhone();
      await createUser(known);
      expect(await door.check(known, 'hello')).toEqual({ kind: 'refuse', reason: 'stranger', reply: strangerReplies.private });
    });

    it('a revoked grant no longer serves', async () => {
      const { access, gate: door } = gate();
      const phone = newPhone();
      await access.allow(phone, 'operator');
      await database.prisma.accessGrant.update({ where: { phone }, data: { revokedAt: clock.now() } });
      expect((await door.check(phone, 'hello')).kind).toBe('refuse');
    });

    it('a granted number sending JOIN is told it is in, and its code is not spent', async () => {
      const { access, gate: door } = gate();
      const phone = newPhone();
      await access.allow(phone, 'operator');
      const { code } = await access.createInviteCode(OWNER);
      expect(await door.check(phone, `JOIN ${code}`)).toEqual({ kind: 'refuse', reason: 'joined', reply: strangerReplies.alreadyIn });
      expect(await access.redeem(newPhone(), code)).toBe(true);
    });

    it('tells a stranger once a day, in their language: again exactly a day later, not a millisecond before', async () => {
      const { gate: door } = gate();
      const phone = newPhone();
      const hebrew = 'שלום, מי זה? אני רוצה לדעת';
      expect(await door.check(phone, hebrew)).toEqual({ kind: 'refuse', reason: 'stranger', reply: strangerRepliesFor(hebrew).private });
      expect(strangerRepliesFor(hebrew).private).not.toBe(strangerReplies.private);
      expect(await notice(phone)).toMatchObject({ kind: 'private', lastNoticeAt: clock.now() });
      clock.advance(DAY - 1);
      expect(await door.check(phone, 'hello?')).toEqual({ kind: 'refuse', reason: 'stranger' });
      clock.advance(1);
      expect(await door.check(phone, 'hello?')).toEqual({ kind: 'refuse', reason: 'stranger', reply: strangerReplies.private });
    });

    it('STOP from a stranger gets nothing and does not use up the day’s notice; STOPS is an ordinary message', async () => {
      const { gate: door } = gate();
      const phone = newPhone();
      expect(await door.check(phone, 'STOP')).toEqual({ kind: 'refuse', reason: 'stranger' });
      expect(await notice(phone)).toBeNull();
      expect(await door.check(phone, 'STOPS')).toEqual({ kind: 'refuse', reason: 'stranger', reply: strangerReplies.private });
    });

    it('keeps only a keyed hash of the number, and forgets rows two days old when it next tells anyone', async () => {
      const { gate: door } = gate();
      const old = newPhone();
      const recent = newPhone();
      await door.check(old, 'hi');
      clock.advance(HOUR);
      await door.check(recent, 'hi');
      expect(await notice(old)).not.toBeNull();
      expect(await notice(recent)).not.toBeNull();
      // Two days after the first notice, less a millisecond: nothing is old enough yet.
      clock.set(new Date(Date.parse('2030-03-01T12:00:00Z') + 2 * DAY - 1));
      await door.check(newPhone(), 'hi');
      expect(await notice(old)).not.toBeNull();
      clock.advance(2);
      await door.check(newPhone(), 'hi');
      expect(await notice(old)).toBeNull();
      expect(await notice(recent)).not.toBeNull();
    });

    it('a right code lets the number in, once; the stranger’s record goes; a second number with the same code is refused', async () => {
      const { access, gate: door } = gate();
      const { code } = await access.createInviteCode(OWNER);
      const phone = newPhone();
      await door.check(phone, 'hi');
      expect(await notice(phone)).not.toBeNull();
      expect(await door.check(phone, `join ${code.toLowerCase()}`)).toEqual({ kind: 'refuse', reason: 'joined', reply: strangerReplies.joined });
      expect(await notice(phone)).toBeNull();
      expect(await door.check(phone, 'hello')).toEqual({ kind: 'serve' });
      const other = newPhone();
      expect(await door.check(other, `JOIN ${code}`)).toEqual({ kind: 'refuse', reason: 'join_failed', reply: strangerReplies.joinFailed });
      expect(await door.check(other, 'hello')).toEqual({ kind: 'refuse', reason: 'stranger' });
    });

    it('a code works until its expiry instant, not at it', async () => {
      const { access } = gate();
      const { code, expiresAt } = await access.createInviteCode(OWNER);
      clock.set(expiresAt);
      expect(await access.redeem(newPhone(), code)).toBe(false);
      clock.set(expiresAt.getTime() - 1);
      expect(await access.redeem(newPhone(), code)).toBe(true);
    });

    it(`after ${MAX_FAILED_JOINS - 1} failed JOINs a right code still works; after ${MAX_FAILED_JOINS} it is refused, silently, for a day`, async () => {
      const { access, gate: door } = gate();
      const lucky = newPhone();
      for (let attempt = 0; attempt < MAX_FAILED_JOINS - 1; attempt += 1) expect((await door.check(lucky, 'JOIN WRONG-CODE')).kind).toBe('refuse');
      expect((await notice(lucky))?.failedJoins).toBe(MAX_FAILED_JOINS - 1);
      const first = await access.createInviteCode(OWNER);
      expect(await door.check(lucky, `JOIN ${first.code}`)).toMatchObject({ reason: 'joined' });

      const guesser = newPhone();
      const replies = [];
      for (let attempt = 0; attempt < MAX_FAILED_JOINS; attempt += 1) replies.push(await door.check(guesser, `JOIN GUESS${attempt}`));
      expect(replies[0]).toEqual({ kind: 'refuse', reason: 'join_failed', reply: strangerReplies.joinFailed });
      expect(replies.slice(1)).toEqual(Array.from({ length: MAX_FAILED_JOINS - 1 }, () => ({ kind: 'refuse', reason: 'join_failed' })));
      const second = await access.createInviteCode(OWNER);
      expect(await door.check(guesser, `JOIN ${second.code}`)).toEqual({ kind: 'refuse', reason: 'join_locked' });
      // The count is of one day: a day later (a millisecond short of it, still locked) it starts again.
      clock.advance(DAY - 1);
      expect(await door.check(guesser, `JOIN ${second.code}`)).toEqual({ kind: 'refuse', reason: 'join_locked' });
      clock.advance(1);
      expect(await door.check(guesser, `JOIN ${second.code}`)).toMatchObject({ reason: 'joined' });
    });

    it('failed JOINs of an earlier day do not add up with today’s', async () => {
      const { access, gate: door } = gate();
      const phone = newPhone();
      for (let attempt = 0; attempt < MAX_FAILED_JOINS - 1; attempt += 1) await door.check(phone, 'JOIN NOPE');
      clock.advance(DAY + 1);
      await door.check(phone, 'JOIN NOPE');
      expect((await notice(phone))?.failedJoins).toBe(1);
      expect((await notice(phone))?.failedSince).toEqual(clock.now());
      for (let attempt = 0; attempt < MAX_FAILED_JOINS - 2; attempt += 1) await door.check(phone, 'JOIN NOPE');
      expect((await notice(phone))?.failedJoins).toBe(MAX_FAILED_JOINS - 1);
      const { code } = await access.createInviteCode(OWNER);
      expect(await door.check(phone, `JOIN ${code}`)).toMatchObject({ reason: 'joined' });
    });
  });

  describe('open mode', () => {
    it('serves known and granted numbers whatever the newcomer count, and newcomers up to NEW_USERS_PER_HOUR in the last hour', async () => {
      await database.prisma.user.deleteMany();
      const { access, gate: door } = gate({ mode: 'open', newUsersPerHour: 2 });
      const known = newPhone();
      await createUser(known, new Date(clock.now().getTime() - HOUR));
      // One user an hour old to the millisecond does not count; one created a millisecond later does.
      await createUser(newPhone(), new Date(clock.now().getTime() - HOUR + 1));
      expect(await door.check(newPhone(), 'hi')).toEqual({ kind: 'serve' });
      await createUser(newPhone());
      const turnedAway = newPhone();
      expect(await door.check(turnedAway, 'hi')).toEqual({ kind: 'refuse', reason: 'busy', reply: strangerReplies.busy });
      expect(await notice(turnedAway)).toMatchObject({ kind: 'busy' });
      expect(await door.check(turnedAway, 'hi again')).toEqual({ kind: 'refuse', reason: 'busy' });
      expect(await door.check(known, 'hi')).toEqual({ kind: 'serve' });
      const granted = newPhone();
      await access.allow(granted, 'operator');
      expect(await door.check(granted, 'hi')).toEqual({ kind: 'serve' });
      expect(await door.check(OWNER, 'hi')).toEqual({ kind: 'serve' });
      // STOP from a newcomer turned away: nothing said, nothing recorded.
      const stopper = newPhone();
      expect(await door.check(stopper, 'stop')).toEqual({ kind: 'refuse', reason: 'busy' });
      expect(await notice(stopper)).toBeNull();
    });
  });
});
