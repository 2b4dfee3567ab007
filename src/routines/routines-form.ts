import { z } from 'zod';
import { defineForm } from '../pages/form-definition.js';
import type { RoutineService } from './routine-service.js';

/** The form's id, for the routines page ("show my routines"). */
export const ROUTINES_FORM = 'routines';

/**
 * The "routines" form: pause, resume or delete one routine by its name, through the same
 * RoutineService calls as scheduler-agent's update_routine and delete_routine.
 */
export function routinesForm(routines: RoutineService) {
  return defineForm({
    id: ROUTINES_FORM,
    title: 'Change a routine',
    description: 'pauses, resumes or deletes one of the user\'s routines ("show my routines")',
    submitLabel: 'Apply',
    fields: [
      { name: 'routine', label: 'Routine (its name, as in the table)', type: 'text', required: true, maxLength: 200 },
      {
        name: 'action',
        label: 'What to do',
        type: 'select',
        required: true,
        options: [
          { value: 'pause', label: 'Pause it' },
          { value: 'resume', label: 'Resume it' },
          { value: 'delete', label: 'Delete it' },
        ],
      },
    ],
    schema: z.object({
      routine: z.string().trim().min(1, 'Enter the name of the routine.').max(200, 'Use at most 200 characters.'),
      action: z.enum(['pause', 'resume', 'delete'], { message: 'Choose pause, resume or delete.' }),
    }),
    async initialValues() {
      return { routine: '', action: 'pause' };
    },
    async submit(userId, values) {
      const list = await routines.list(userId);
      // The exact name first (the table shows names), else words of it.
      const exact = list.filter((routine) => routine.name.toLowerCase() === values.routine.toLowerCase());
      const target = exact.length === 1 ? { routineId: exact[0]!.id } : { match: values.routine };
      const result =
        values.action === 'delete'
          ? await routines.remove(userId, target)
          : await routines.update(userId, target, { status: values.action === 'pause' ? 'paused' : 'active' });
      if (!result.ok) return { ok: false, fieldErrors: { routine: result.candidates ? 'Several routines match: enter the full name.' : 'No routine has that name.' } };
      const done = { pause: 'Paused', resume: 'Resumed', delete: 'Deleted' }[values.action];
      const next = values.action === 'resume' && result.value.next ? ` Next run: ${result.value.next}.` : '';
      return { ok: true, message: `${done}: ${result.value.name}.${next}` };
    },
  });
}
