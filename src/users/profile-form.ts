import { z } from 'zod';
import { isValidTimezone } from '../shared/time-zones.js';
import { defineForm } from '../pages/form-definition.js';
import type { UserService } from './user-service.js';

/**
 * The "profile" form a page can carry: what to call the user and their time zone, the same
 * settings memory-agent's `update_profile` changes, through the same UserService call.
 */
export function profileForm(users: UserService) {
  return defineForm({
    id: 'profile',
    title: 'Your settings',
    description: 'lets the user change their name and time zone ("show my settings")',
    submitLabel: 'Save',
    fields: [
      { name: 'name', label: 'Your name', type: 'text', required: true, autocomplete: 'given-name', maxLength: 80 },
      { name: 'timezone', label: 'Time zone', type: 'text', required: true, hint: 'A time zone name such as Europe/London or America/New_York.', maxLength: 64 },
    ],
    schema: z.object({
      name: z.string().trim().min(1, 'Enter the name Herald should call you.').max(80, 'Use at most 80 characters.'),
      timezone: z.string().trim().min(1, 'Enter your time zone.').refine(isValidTimezone, 'That is not a time zone Herald knows. Use a name such as Europe/London.'),
    }),
    async initialValues(userId) {
      const user = await users.getConfig(userId);
      return { name: user?.name ?? '', timezone: user?.timezone ?? '' };
    },
    async submit(userId, values) {
      const profile = await users.updateProfile(userId, values);
      return { ok: true, message: `Saved. Herald will call you ${profile.name} and use ${profile.timezone} time.` };
    },
  });
}
