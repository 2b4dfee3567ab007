import { DateTime } from 'luxon';
import { parseTwilioAddress } from '../channels/phone-number.js';
import type { Clock } from '../shared/clock.js';
import type { UserConfig } from '../users/user-service.js';
import type { AccessEntry, AccessService } from './access-service.js';
import { ownerReplies } from './access-replies.js';
import type { SystemTexts } from './system-texts.js';

/** An owner's command by text. */
export type AdminCommand =
  | { kind: 'invite'; phone: string | undefined; welcome?: string | undefined }
  | { kind: 'invite_code' }
  | { kind: 'revoke'; phone: string | undefined }
  | { kind: 'users' };

/** USERS lists at most this many by text; the rest are counted. */
const USERS_BY_TEXT = 15;

/**
 * The admin command a message is, when the whole message is one: `INVITE +15551234567
 * [welcome text]`, `INVITE CODE`, `REVOKE +15551234567`, `USERS` (any case). A number that
 * does not parse still makes the command (`phone` undefined), so the owner is told so. The
 * caller decides who may use them: from anyone but an owner they are ordinary messages.
 */
export function parseAdminCommand(text: string): AdminCommand | undefined {
  const body = text.trim();
  if (/^invite\s+code[.!]*$/i.test(body)) return { kind: 'invite_code' };
  if (/^users[.!?]*$/i.test(body)) return { kind: 'users' };
  // The number ends at its last digit and the welcome starts at a non-space: no two parts can take the same characters.
  const invite = /^invite\s+(\+?\d(?:[\d ()-]*\d)?|whatsapp:\S+)(?:\s+(\S[\s\S]*))?$/i.exec(body);
  if (invite) return { kind: 'invite', phone: phoneOf(invite[1]!), welcome: invite[2]?.trim() || undefined };
  const revoke = /^revoke\s+(\+?\d(?:[\d ()-]*\d)?|whatsapp:[^\s.!]+(?:[.!]+[^\s.!]+)*)[.!]*$/i.exec(body);
  if (revoke) return { kind: 'revoke', phone: phoneOf(revoke[1]!) };
  return undefined;
}

/** E.164 from what the owner typed: international form only (a bare national number is ambiguous). */
function phoneOf(typed: string): string | undefined {
  const parsed = parseTwilioAddress(typed.replace(/[()]/g, ''));
  return parsed?.phone;
}

/** Runs owners' commands; every answer is Herald's own words, no model. */
export class AdminCommands {
  constructor(
    private readonly access: AccessService,
    private readonly texts: SystemTexts,
    private readonly clock: Clock,
  ) {}

  /** The reply to an owner's command. */
  async run(command: AdminCommand, owner: UserConfig): Promise<string> {
    const say = ownerReplies(owner.language);
    switch (command.kind) {
      case 'invite': {
        if (!command.phone) return say.badPhone;
        const outcome = await this.access.allow(command.phone, 'owner', owner.phone);
        if (outcome === 'owner') return say.ownerAlways(command.phone);
        let welcomed = false;
        if (command.welcome) {
          welcomed = await this.texts.send(command.phone, `${command.welcome}\n\n${say.welcomeSuffix}`, 'invite welcome');
        }
        return outcome === 'already' && !welcomed ? say.alreadyInvited(command.phone) : say.invited(command.phone, welcomed);
      }
      case 'invite_code': {
        const { code, expiresAt } = await this.access.createInviteCode(owner.phone);
        const expires = DateTime.fromJSDate(expiresAt, { zone: owner.timezone }).setLocale(owner.language ?? 'en').toFormat('ccc d LLL, HH:mm');
        return say.code(code, expires);
      }
      case 'revoke': {
        if (!command.phone) return say.badPhone;
        const outcome = await this.access.revoke(command.phone);
        if (outcome === 'owner') return say.cannotRevokeOwner(command.phone);
        return outcome === 'revoked' ? say.revoked(command.phone) : say.notAllowed(command.phone);
      }
      case 'users':
        return this.users(owner);
    }
  }

  private async users(owner: UserConfig): Promise<string> {
    const say = ownerReplies(owner.language);
    const entries = await this.access.users();
    const head = this.access.settings.mode === 'open' ? say.openMode : say.inviteMode(entries.length);
    const now = this.clock.now();
    const lines = entries.slice(0, USERS_BY_TEXT).map((entry) => line(entry, owner, now, say.never, say.justNow) + (entry.routines > 0 ? `, ${say.routines(entry.routines)}` : ''));
    const more = entries.length > USERS_BY_TEXT ? [say.more(entries.length - USERS_BY_TEXT)] : [];
    return [head, ...lines, ...more].join('\n');
  }
}

/** "+15551234567 Dana (owner): 2 h ago". */
function line(entry: AccessEntry, owner: UserConfig, now: Date, never: string, justNow: string): string {
  if (entry.lastActiveAt && Math.abs(now.getTime() - entry.lastActiveAt.getTime()) < 60_000) return `${[entry.phone, entry.name, entry.owner ? '(owner)' : undefined].filter(Boolean).join(' ')}: ${justNow}`;
  const who = [entry.phone, entry.name, entry.owner ? '(owner)' : undefined].filter(Boolean).join(' ');
  const when = entry.lastActiveAt ? (DateTime.fromJSDate(entry.lastActiveAt, { zone: owner.timezone }).setLocale(owner.language ?? 'en').toRelative({ base: DateTime.fromJSDate(now, { zone: owner.timezone }) }) ?? never) : never;
  return `${who}: ${when}`;
}
