import { AccessService } from '../access/access-service.js';
import { systemClock } from '../shared/clock.js';
import { CommandError, phoneOption, type AccountsContext, type AccountsSubcommand } from './accounts-subcommand.js';

/** The invite list on the command's database, with the configured mode and owners. */
function accessService(context: AccountsContext): AccessService {
  return new AccessService(context.database.prisma, systemClock, context.config.access);
}

/** `allow`, `revoke`, `invite-code` and `users`: the owners' text commands (INVITE, REVOKE, INVITE CODE, USERS) for operators. */
export const accessSubcommands: AccountsSubcommand[] = [
  {
    name: 'allow',
    usage: '--phone +15551234567 | --existing',
    summary:
      'Let a number use Herald in invite mode (what an owner\'s INVITE does; no text is sent). --existing: everyone Herald already serves (for switching from open to invite; revoked numbers stay revoked).',
    options: { phone: { type: 'string' }, existing: { type: 'boolean' } },
    required: [],
    oneOf: ['phone', 'existing'],
    async run(values, context) {
      if (values.existing) {
        const added = await accessService(context).allowExistingUsers();
        const note = context.config.access.mode === 'open' ? ' (ACCESS_MODE is open: everyone may use Herald anyway; this keeps them when it becomes invite)' : '';
        return `${added} existing user${added === 1 ? '' : 's'} added to the invite list${note}.`;
      }
      const phone = phoneOption(values.phone);
      const outcome = await accessService(context).allow(phone, 'operator');
      const note = context.config.access.mode === 'open' ? ' (ACCESS_MODE is open: everyone may use Herald anyway)' : '';
      if (outcome === 'owner') return `${phone} is an owner (OWNER_PHONES) and can always use Herald.`;
      return `${outcome === 'already' ? `${phone} could already use Herald` : `${phone} can use Herald now`}${note}.`;
    },
  },
  {
    name: 'revoke',
    usage: '--phone +15551234567',
    summary: 'Stop a number using Herald in invite mode (their routines stop; their other data stays until they text DELETE MY DATA).',
    options: { phone: { type: 'string' } },
    required: ['phone'],
    async run(values, context) {
      const phone = phoneOption(values.phone);
      const outcome = await accessService(context).revoke(phone);
      if (outcome === 'owner') throw new CommandError(`${phone} is an owner: remove it from OWNER_PHONES instead.`);
      if (outcome === 'not_allowed') throw new CommandError(`${phone} was not on the invite list.`);
      return `${phone} can no longer use Herald.`;
    },
  },
  {
    name: 'invite-code',
    usage: '',
    summary: 'Make a single-use invite code, valid for 7 days: the new person texts JOIN <code>.',
    options: {},
    required: [],
    async run(_values, context) {
      const { code, expiresAt } = await accessService(context).createInviteCode('operator');
      return `Invite code: ${code} (works once, until ${expiresAt.toISOString()}). The new person texts JOIN ${code}.`;
    },
  },
  {
    name: 'users',
    usage: '',
    summary: 'Who may use Herald (in open mode: every user), most recently active first.',
    options: {},
    required: [],
    async run(_values, context) {
      const entries = await accessService(context).users();
      const head =
        context.config.access.mode === 'open'
          ? `ACCESS_MODE is open: anyone may use Herald. ${entries.length} user${entries.length === 1 ? '' : 's'}:`
          : `ACCESS_MODE is invite: ${entries.length} number${entries.length === 1 ? '' : 's'} may use Herald:`;
      const lines = entries.map((entry) =>
        [entry.phone, entry.name ?? '-', entry.owner ? 'owner' : (entry.source ?? 'user'), entry.lastActiveAt ? `last active ${entry.lastActiveAt.toISOString()}` : 'never active'].join('  '),
      );
      return [head, ...lines].join('\n');
    },
  },
];
