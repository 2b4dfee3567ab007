import type { PageService } from '../../pages/page-service.js';
import type { RoutineService } from '../../routines/routine-service.js';
import { ROUTINES_FORM } from '../../routines/routines-form.js';
import { say } from '../../texts/texts.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/** "show my routines" (and its few spellings): a page, without a model. "what routines do I have" stays the model's, by text. */
const SHOW_ROUTINES = [
  /^(please\s+)?(show|open|give)\s+(me\s+)?(all\s+)?my\s+routines(\s+page)?(\s+please)?[.!?]*$/i,
  /^my\s+routines\s+page[.!?]*$/i,
  /^(תראה|הראה|תציג)\s+(לי\s+)?את\s+השגרות\s+שלי[.!?]*$/,
];

/**
 * "show my routines": a page listing the user's routines (name, instruction, next run,
 * status) with a form that pauses, resumes or deletes each (src/routines/routines-form.ts).
 */
export function routinesPageAnswer(deps: { routines: RoutineService; pages: PageService }): TurnAnswer {
  return {
    name: 'routines-page',
    async answer(turn) {
      if (!SHOW_ROUTINES.some((pattern) => pattern.test(turn.text.trim()))) return undefined;
      const routines = await deps.routines.list(turn.user.id);
      if (routines.length === 0) return withoutModel({ reply: say(turn.language, 'routinesNone') });
      const page = await deps.pages.create(turn.user.id, turn.user.timezone, {
        title: 'Your routines',
        sections: [
          {
            kind: 'table',
            heading: `Routines (${routines.length})`,
            columns: ['Routine', 'What Herald does', 'Repeats', 'Next run', 'Status'],
            rows: routines.map((routine) => [
              routine.name,
              routine.condition ? `${routine.instruction} (${routine.condition})` : routine.instruction,
              routine.repeats,
              routine.next ?? '—',
              routine.status,
            ]),
          },
          { kind: 'form', form: ROUTINES_FORM },
        ],
      });
      if (!page.ok) throw new Error(page.error);
      return withoutModel({ reply: say(turn.language, 'routinesPage', { link: page.value.link }) });
    },
  };
}
