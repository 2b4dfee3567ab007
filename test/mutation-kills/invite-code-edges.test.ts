import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashInviteCode, INVITE_CODE_TTL_MS, joinCode, newInviteCode, normalizeInviteCode } from '../../src/access/invite-code.js';

/** Invite codes at their edges (issue 32 item 8): what a JOIN is, and what one code is however it is typed. */
describe('invite codes', () => {
  it('are two groups of four from the unambiguous alphabet, different each time', () => {
    const codes = Array.from({ length: 200 }, () => newInviteCode());
    for (const code of codes) expect(code).toMatch(/^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    expect(new Set(codes).size).toBe(codes.length);
    // Every letter of the alphabet turns up (a shortened alphabet would make codes guessable).
    expect(new Set(codes.join('').replaceAll('-', '')).size).toBe(30);
  });

  it('last seven days', () => {
    expect(INVITE_CODE_TTL_MS).toBe(7 * 24 * 60 * 60 * 1000);
  });

  it('are one code however they are typed, and stored only as the SHA-256 of the canonical form', () => {
    expect(normalizeInviteCode(' k7pm - q2xd ')).toBe('K7PMQ2XD');
    expect(normalizeInviteCode('k7pm\tq2xd')).toBe('K7PMQ2XD');
    expect(hashInviteCode('k7pm q2xd')).toBe(createHash('sha256').update('K7PMQ2XD').digest('hex'));
    expect(hashInviteCode('K7PM-Q2XD')).toBe(hashInviteCode('k7pmq2xd'));
    expect(hashInviteCode('K7PM-Q2XE')).not.toBe(hashInviteCode('K7PM-Q2XD'));
  });

  it.each([
    ['JOIN K7PM-Q2XD', 'K7PM-Q2XD'],
    ['join k7pm q2xd', 'k7pm q2xd'],
    ['  Join   abcd!. ', 'abcd'],
    ['JOIN\tabcd', 'abcd'],
    ['join a', 'a'],
    [`join a${'b'.repeat(40)}`, `a${'b'.repeat(40)}`],
    ['join abcd -', 'abcd -'],
    ['join abcd  ', 'abcd'],
    ['JOIN k7pm q2xd \t', 'k7pm q2xd'],
  ])('%j is a JOIN with code %j', (body, code) => {
    expect(joinCode(body)).toBe(code);
  });

  it.each(['joinabcd', 'join', 'join ', 'join -abcd', 'join .abcd', 'please join abcd', 'join abcd?', 'join abcd, thanks', `join a${'b'.repeat(41)}`, 'JOIN K7PM_Q2XD', 'rejoin abcd', 'join abcd\nand more'])('%j is no JOIN', (body) => {
    expect(joinCode(body)).toBeUndefined();
  });
});
