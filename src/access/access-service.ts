import type { PrismaClient, PrismaExecutor } from '../db/prisma-types.js';
import { ROUTINE_QUEUE } from '../routines/routine-queue.js';
import type { Clock } from '../shared/clock.js';
import { hashInviteCode, INVITE_CODE_TTL_MS, newInviteCode } from './invite-code.js';

/** Who may use Herald: the configured mode and owners. */
export interface AccessSettings {
  mode: 'open' | 'invite';
  /** E.164 numbers; always allowed, and admins. */
  ownerPhones: readonly string[];
  /** Open mode: new users per hour before newcomers are turned away. */
  newUsersPerHour: number;
}

/** One entry of `USERS`. */
export interface AccessEntry {
  phone: string;
  name: string | null;
  owner: boolean;
  /** How they were allowed ("owner", "operator", "code"); undefined in open mode or for owners. */
  source?: string | undefined;
  /** Their last message to Herald, if any. */
  lastActiveAt: Date | null;
  /** How many routines they have (src/routines). */
  routines: number;
}

/** The result of allowing a number. */
export type AllowOutcome = 'allowed' | 'already' | 'owner';
/** The result of revoking one. */
export type RevokeOutcome = 'revoked' | 'not_allowed' | 'owner';

/**
 * The invite list: allowing and revoking numbers, invite codes and who is allowed. Text
 * commands (INVITE, REVOKE, INVITE CODE, USERS) and `npm run accounts` both come here, so
 * they do exactly the same. The webhook's per-message check is {@link ./access-gate.ts}.
 */
export class AccessService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    readonly settings: AccessSettings,
  ) {}

  /** True for an owner's number (E.164). */
  isOwner(phone: string): boolean {
    return this.settings.ownerPhones.includes(phone);
  }

  /** Adds a number to the invite list (again, if it was revoked). */
  async allow(phone: string, source: 'owner' | 'operator' | 'code', grantedBy?: string, executor: PrismaExecutor = this.prisma): Promise<AllowOutcome> {
    if (this.isOwner(phone)) return 'owner';
    const existing = await executor.accessGrant.findUnique({ where: { phone } });
    if (existing && existing.revokedAt === null) return 'already';
    const now = this.clock.now();
    await executor.accessGrant.upsert({
      where: { phone },
      create: { phone, source, grantedBy: grantedBy ?? null, createdAt: now },
      update: { source, grantedBy: grantedBy ?? null, createdAt: now, revokedAt: null },
    });
    return 'allowed';
  }

  /**
   * Puts every number Herald already serves on the invite list, for switching a deployment
   * from open to invite mode without locking its users out. Numbers an owner revoked stay
   * revoked; owners need no entry. Returns how many were added.
   */
  async allowExistingUsers(): Promise<number> {
    const now = this.clock.now();
    return this.prisma.$executeRaw`
      INSERT INTO "AccessGrant" ("phone", "source", "grantedBy", "createdAt")
      SELECT u."phone", 'operator', NULL, ${now}
        FROM "User" u
       WHERE NOT (u."phone" = ANY(${[...this.settings.ownerPhones]}::text[]))
      ON CONFLICT ("phone") DO NOTHING`;
  }

  /** Users who are neither owners nor on the invite list (revoked ones included): in invite mode they are strangers. */
  async usersWithoutAccess(): Promise<number> {
    const [row] = await this.prisma.$queryRaw<Array<{ count: bigint }>>`
      SELECT count(*) AS "count"
        FROM "User" u
       WHERE NOT (u."phone" = ANY(${[...this.settings.ownerPhones]}::text[]))
         AND NOT EXISTS (SELECT 1 FROM "AccessGrant" g WHERE g."phone" = u."phone" AND g."revokedAt" IS NULL)`;
    return Number(row?.count ?? 0);
  }

  /**
   * Takes a number off the invite list: in invite mode it is a stranger again (its data stays
   * until deleted), except its routines and their jobs, which go: Herald no longer works for it
   * unasked.
   */
  async revoke(phone: string): Promise<RevokeOutcome> {
    if (this.isOwner(phone)) return 'owner';
    return this.prisma.$transaction(async (transaction) => {
      const revoked = await transaction.accessGrant.updateMany({ where: { phone, revokedAt: null }, data: { revokedAt: this.clock.now() } });
      if (revoked.count === 0) return 'not_allowed' as const;
      const routines = await transaction.routine.findMany({ where: { user: { phone } }, select: { id: true } });
      if (routines.length > 0) {
        const ids = routines.map((routine) => routine.id);
        await transaction.$executeRawUnsafe(`DELETE FROM pgboss.job WHERE name = $1 AND data->>'routineId' = ANY($2::text[]) AND state <> 'active'`, ROUTINE_QUEUE, ids);
        await transaction.routine.deleteMany({ where: { id: { in: ids } } });
      }
      return 'revoked' as const;
    });
  }

  /** A new single-use code, valid for 7 days; only its hash is stored. */
  async createInviteCode(createdBy: string): Promise<{ code: string; expiresAt: Date }> {
    const code = newInviteCode();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITE_CODE_TTL_MS);
    await this.prisma.inviteCode.create({ data: { codeHash: hashInviteCode(code), createdBy, createdAt: now, expiresAt } });
    return { code, expiresAt };
  }

  /**
   * Redeems a code for a number, atomically: a code works once, before it expires. Returns
   * false for a used, expired or unknown code alike (the caller must not say which).
   */
  async redeem(phone: string, typedCode: string): Promise<boolean> {
    const now = this.clock.now();
    return this.prisma.$transaction(async (transaction) => {
      const claimed = await transaction.inviteCode.updateMany({
        where: { codeHash: hashInviteCode(typedCode), usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (claimed.count === 0) return false;
      await this.allow(phone, 'code', undefined, transaction);
      return true;
    });
  }

  /**
   * Who may use Herald, most recently active first: in invite mode the owners and the
   * invite list; in open mode every user.
   */
  async users(): Promise<AccessEntry[]> {
    // One index probe per user (Message's userId+createdAt index), not a scan of every message.
    const lastActive = await this.prisma.$queryRaw<Array<{ phone: string; name: string | null; lastActiveAt: Date | null; routines: number }>>`
      SELECT u."phone", u."name",
             (SELECT m."createdAt" FROM "Message" m WHERE m."userId" = u."id" AND m."role" = 'user' ORDER BY m."createdAt" DESC LIMIT 1) AS "lastActiveAt",
             (SELECT count(*) FROM "Routine" r WHERE r."userId" = u."id")::int AS "routines"
        FROM "User" u`;
    const byPhone = new Map(lastActive.map((row) => [row.phone, row]));
    let entries: AccessEntry[];
    if (this.settings.mode === 'open') {
      entries = lastActive.map((row) => ({ phone: row.phone, name: row.name, owner: this.isOwner(row.phone), lastActiveAt: row.lastActiveAt, routines: row.routines }));
    } else {
      const grants = await this.prisma.accessGrant.findMany({ where: { revokedAt: null } });
      const phones = [...new Set([...this.settings.ownerPhones, ...grants.map((grant) => grant.phone)])];
      entries = phones.map((phone) => ({
        phone,
        name: byPhone.get(phone)?.name ?? null,
        owner: this.isOwner(phone),
        source: this.isOwner(phone) ? undefined : grants.find((grant) => grant.phone === phone)?.source,
        lastActiveAt: byPhone.get(phone)?.lastActiveAt ?? null,
        routines: byPhone.get(phone)?.routines ?? 0,
      }));
    }
    return entries.sort((a, b) => (b.lastActiveAt?.getTime() ?? 0) - (a.lastActiveAt?.getTime() ?? 0) || a.phone.localeCompare(b.phone));
  }
}
