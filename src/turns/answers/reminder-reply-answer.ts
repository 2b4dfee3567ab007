import { DateTime } from 'luxon';
import type { ConversationSubjects } from '../../conversation/conversation-subject.js';
import { readReminderReply } from '../../reminders/reminder-reply-words.js';
import type { ReminderService } from '../../reminders/reminder-service.js';
import type { Clock } from '../../shared/clock.js';
import { say } from '../../texts/texts.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/**
 * Replying to a reminder without a model: within the reply window of a delivery (or quoting
 * it on WhatsApp, whatever its age), a message that is only a snooze or done word acts on
 * that reminder. A snooze re-delivers it once at the new time, and is made in the turn's
 * own commit (exactly once, crash or not); "done" acknowledges the occurrence (and drops a
 * snooze of it still waiting). Anything else goes to the planner, the reminder in its view.
 */
export function reminderReplyAnswer(deps: { subjects: ConversationSubjects; reminders: ReminderService; clock: Clock; snoozeMinutes: number }): TurnAnswer {
  return {
    name: 'reminder_reply',
    async answer(turn) {
      const reply = readReminderReply(turn.text, deps.clock.now(), turn.user.timezone, deps.snoozeMinutes);
      if (!reply) return undefined;
      const subject = await deps.subjects.of(turn.user.id, turn.latest);
      if (subject?.kind !== 'reminder') return undefined;
      const { reminderId, dueAt } = subject;
      const userId = turn.user.id;
      if (reply.kind === 'snooze_out_of_range') return withoutModel({ reply: say(turn.language, 'snoozeOutOfRange') });
      if (reply.kind === 'snooze') {
        const time = timeOf(reply.at, deps.clock.now(), turn.user.timezone, turn.language);
        turn.logger.info({ reminderId, snoozeUntil: reply.at.toISOString() }, 'reminder snoozed without a model');
        return withoutModel({
          reply: say(turn.language, 'snoozed', { time, text: subject.text }),
          effects: [
            async (transaction) => {
              await deps.reminders.snooze(transaction, userId, reminderId, reply.at);
            },
          ],
        });
      }
      const view = await deps.reminders.view(userId, reminderId);
      turn.logger.info({ reminderId }, 'reminder marked done without a model');
      return withoutModel({
        reply: view?.repeats && view.next ? say(turn.language, 'reminderDoneNext', { text: subject.text, next: view.next }) : say(turn.language, 'reminderDone', { text: subject.text }),
        effects: [
          async (transaction) => {
            await deps.reminders.acknowledge(transaction, userId, reminderId, dueAt);
          },
        ],
      });
    },
  };
}

/** "8:10 AM" today, "Fri 8:10 AM" another day, in the reader's language and zone. */
function timeOf(at: Date, now: Date, zone: string, language: string): string {
  const local = DateTime.fromJSDate(at, { zone }).setLocale(language);
  const sameDay = local.hasSame(DateTime.fromJSDate(now, { zone }), 'day');
  return sameDay ? local.toLocaleString(DateTime.TIME_SIMPLE) : local.toLocaleString({ weekday: 'short', hour: 'numeric', minute: '2-digit' });
}
