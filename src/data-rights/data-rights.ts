import { z } from 'zod';
import type { ConfirmationAsk } from '../questions/pending-action.js';
import type { Logger } from '../logging/logger.js';
import type { PageService } from '../pages/page-service.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../tools/tool.js';
import type { UserConfig } from '../users/user-service.js';
import { dataReplies } from './data-replies.js';
import type { MyDataPage } from './my-data-page.js';
import type { UserEraser } from './user-eraser.js';

/** The held action DELETE MY DATA stages: Herald's own ("system"), not a model's tool call. */
export const ERASE_ACTION = { agent: 'system', tool: 'erase_my_data' } as const;

/**
 * MY DATA and DELETE MY DATA: a page of what Herald holds about the user, and erasing all
 * of it after their YES (through src/confirmations, like any held action).
 */
export class DataRights {
  /** The held action YES runs; the confirmation resolver in runtime.ts finds it by {@link ERASE_ACTION}. */
  readonly eraseTool: ToolDefinition;

  constructor(
    private readonly page: MyDataPage,
    private readonly pages: PageService,
    private readonly eraser: UserEraser,
    private readonly confirmationTtlMs: number,
    private readonly logger: Logger,
  ) {
    this.eraseTool = defineTool({
      name: ERASE_ACTION.tool,
      description: 'Erases everything Herald holds about the user (DELETE MY DATA, after their YES).',
      inputSchema: z.object({}),
      mutates: true,
      run: async (_input, context) => {
        // Only ever run for a YES: the staged action carries no arguments worth trusting but the user's own id.
        if (!context.confirmed) return toolError('erasing needs the user\'s YES');
        const erased = await this.eraser.erase(context.userId);
        return erased ? ok({ erased: true }) : toolError('there was nothing to erase');
      },
    });
  }

  /** MY DATA: a fresh page and its link. */
  async myData(user: UserConfig, text = ''): Promise<string> {
    const say = dataReplies(user.language, text);
    const spec = await this.page.build(user.id);
    if (!spec) return say.myDataFailed;
    const page = await this.pages.create(user.id, user.timezone, spec);
    if (!page.ok) {
      this.logger.error({ userId: user.id, error: page.error }, 'MY DATA page could not be made');
      return say.myDataFailed;
    }
    return say.myData(page.value.link);
  }

  /** DELETE MY DATA: the question, and the held erase its YES runs. */
  deleteRequest(user: UserConfig, text = ''): { reply: string; confirmation: ConfirmationAsk } {
    const say = dataReplies(user.language, text);
    const minutes = Math.round(this.confirmationTtlMs / 60_000);
    const question = `${say.confirmErase} ${say.confirmEraseAsk(minutes)}`;
    return {
      reply: question,
      confirmation: { question, actions: [{ ...ERASE_ACTION, input: {}, question, done: say.erased }] },
    };
  }
}

