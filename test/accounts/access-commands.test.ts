import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashInviteCode } from '../../src/access/invite-code.js';
import { TEST_ENCRYPTION_KEY } from '../helpers/herald-harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run accounts -- allow|revoke|invite-code|users`, run for real against a test database. */
describe('npm run accounts: the invite list', () => {
  let database: TestDatabase;

  // A database of its own for each test: they count every grant and user in it.
  beforeEach(async () => {
    database = await createTestDatabase(2);
  });
  afterEach(async () => {
    await database.drop();
  });

  function accounts(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'accounts', '--', ...args],
        {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: database.url, HERALD_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ACCESS_MODE: 'invite', OWNER_PHONES: '+12125550100' },
        },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  it('allow, users, revoke and invite-code do what the owners\' texts do, and say so', async () => {
    const allowed = await accounts('allow', '--phone', '+1 212 555 0199');
    expect(allowed).toMatchObject({ code: 0, stdout: '+12125550199 can use Herald now.\n' });
    expect(await database.prisma.accessGrant.findUnique({ where: { phone: '+12125550199' } })).toMatchObject({ source: 'operator', revokedAt: null });
    expect((await accounts('allow', '--phone', '+12125550199')).stdout).toBe('+12125550199 could already use Herald.\n');

    const users = await accounts('users');
    expect(users.code).toBe(0);
    expect(users.stdout).toBe('ACCESS_MODE is invite: 2 numbers may use Herald:\n+12125550100  -  owner  never active\n+12125550199  -  operator  never active\n');

    const code = await accounts('invite-code');
    expect(code.code).toBe(0);
    const typed = /^Invite code: (\S+) \(works once, until \S+\)\. The new person texts JOIN \1\.\n$/.exec(code.stdout)?.[1];
    expect(typed, code.stdout).toBeDefined();
    expect(await database.prisma.inviteCode.findUnique({ where: { codeHash: hashInviteCode(typed!) } })).toMatchObject({ createdBy: 'operator', usedAt: null });

    expect(await accounts('revoke', '--phone', '+12125550199')).toMatchObject({ code: 0, stdout: '+12125550199 can no longer use Herald.\n' });
    expect(await accounts('revoke', '--phone', '+12125550199')).toMatchObject({ code: 1, stderr: '+12125550199 was not on the invite list.\n' });
    expect(await accounts('revoke', '--phone', '+12125550100')).toMatchObject({ code: 1, stderr: '+12125550100 is an owner: remove it from OWNER_PHONES instead.\n' });
    // Seven real child processes, each starting tsx: seconds apiece on a busy machine.
  }, 180_000);

  it('allow --existing puts every user Herald serves on the list (for leaving open mode), but not owners or revoked numbers', async () => {
    const now = new Date();
    for (const phone of ['+12125550401', '+12125550402', '+12125550403', '+12125550100']) {
      await database.prisma.user.create({ data: { phone, timezone: 'America/New_York', updatedAt: now } });
    }
    await database.prisma.accessGrant.create({ data: { phone: '+12125550403', source: 'owner', revokedAt: now } });

    expect(await accounts('allow', '--existing')).toMatchObject({ code: 0, stdout: '2 existing users added to the invite list.\n' });
    const grants = await database.prisma.accessGrant.findMany({ where: { phone: { in: ['+12125550401', '+12125550402', '+12125550403', '+12125550100'] } }, orderBy: { phone: 'asc' } });
    expect(grants.map((grant) => [grant.phone, grant.source, grant.revokedAt === null])).toEqual([
      ['+12125550401', 'operator', true],
      ['+12125550402', 'operator', true],
      ['+12125550403', 'owner', false],
    ]);
    expect((await accounts('allow', '--existing')).stdout).toBe('0 existing users added to the invite list.\n');
    const both = await accounts('allow', '--existing', '--phone', '+12125550404');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give only one of --phone or --existing');
  }, 120_000);

  it('refuses a malformed number or a missing option clearly, changing nothing', async () => {
    const before = await database.prisma.accessGrant.count();
    expect(await accounts('allow', '--phone', '5550199')).toMatchObject({ code: 1, stderr: '"5550199" is not a phone number in international form, such as +15551234567.\n' });
    const missing = await accounts('allow');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --phone or --existing');
    expect(await database.prisma.accessGrant.count()).toBe(before);
  });
});
