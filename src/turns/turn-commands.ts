import type { AccessService } from '../access/access-service.js';
import { parseAdminCommand, type AdminCommands } from '../access/admin-commands.js';
import type { ConfirmationAsk } from '../questions/pending-action.js';
import { detectDataCommand } from '../data-rights/data-commands.js';
import type { DataRights } from '../data-rights/data-rights.js';
import type { UserConfig } from '../users/user-service.js';

/** What a command answers, without any model: the reply, and maybe a held action to confirm. */
interface CommandOutcome {
  reply: string;
  confirmation?: ConfirmationAsk | undefined;
}

/** A recognised command, ready to run. */
export interface TurnCommand {
  /** For logs: "my_data", "admin:invite"… */
  name: string;
  run(): Promise<CommandOutcome>;
}

/** Finds the command a whole message is, for this user (admin commands only for owners). */
export interface TurnCommands {
  detect(text: string, user: UserConfig): TurnCommand | undefined;
}

/**
 * Herald's text commands besides STOP/START/HELP: MY DATA and DELETE MY DATA for everyone,
 * INVITE / INVITE CODE / REVOKE / USERS for owners (from anyone else they are ordinary
 * messages for the model). Like keywords, each is a turn of its own and costs no model call.
 */
export class HeraldCommands implements TurnCommands {
  constructor(
    private readonly access: AccessService,
    private readonly admin: AdminCommands,
    private readonly data: DataRights,
  ) {}

  detect(text: string, user: UserConfig): TurnCommand | undefined {
    const data = detectDataCommand(text);
    if (data === 'my_data') return { name: data, run: async () => ({ reply: await this.data.myData(user, text) }) };
    if (data === 'delete_my_data') return { name: data, run: async () => this.data.deleteRequest(user, text) };
    if (!this.access.isOwner(user.phone)) return undefined;
    const admin = parseAdminCommand(text);
    if (admin) return { name: `admin:${admin.kind}`, run: async () => ({ reply: await this.admin.run(admin, user) }) };
    return undefined;
  }
}
