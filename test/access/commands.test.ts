import { describe, expect, it } from 'vitest';
import { parseAdminCommand } from '../../src/access/admin-commands.js';
import { hashInviteCode, joinCode, newInviteCode, normalizeInviteCode } from '../../src/access/invite-code.js';
import { detectDataCommand } from '../../src/data-rights/data-commands.js';

describe('owner commands', () => {
  it('recognises whole-message commands in any case, with the number in international form', () => {
    expect(parseAdminCommand('INVITE +14155550123')).toEqual({ kind: 'invite', phone: '+14155550123', welcome: undefined });
    expect(parseAdminCommand('invite +1 (212) 555-0100 Welcome aboard!\nSee you')).toEqual({ kind: 'invite', phone: '+12125550100', welcome: 'Welcome aboard!\nSee you' });
    expect(parseAdminCommand('Invite Code')).toEqual({ kind: 'invite_code' });
    expect(parseAdminCommand('  users. ')).toEqual({ kind: 'users' });
    expect(parseAdminCommand('REVOKE +972 50-123-4567')).toEqual({ kind: 'revoke', phone: '+972501234567' });
  });

  it('keeps a command with a number that does not parse, so the owner is told, and ignores sentences', () => {
    expect(parseAdminCommand('INVITE 5550100')).toEqual({ kind: 'invite', phone: undefined, welcome: undefined });
    expect(parseAdminCommand('REVOKE +999')).toEqual({ kind: 'revoke', phone: undefined });
    for (const text of ['invite my sister to dinner', 'REVOKE', 'users of the app?', 'please invite code', 'INVITE']) expect(parseAdminCommand(text), text).toBeUndefined();
  });
});

describe('invite codes', () => {
  it('are 8 unambiguous characters, matched whatever the case, spacing or dashes', () => {
    const code = newInviteCode();
    expect(code).toMatch(/^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    expect(normalizeInviteCode(` ${code.toLowerCase().replace('-', ' ')} `)).toBe(code.replace('-', ''));
    expect(hashInviteCode(code.toLowerCase())).toBe(hashInviteCode(code.replace('-', '')));
    expect(new Set(Array.from({ length: 200 }, newInviteCode)).size).toBe(200);
  });

  it('finds the code of a JOIN message and nothing else', () => {
    expect(joinCode('JOIN K7PM-Q2XD')).toBe('K7PM-Q2XD');
    expect(joinCode('join k7pm q2xd!')).toBe('k7pm q2xd');
    expect(joinCode('join')).toBeUndefined();
    expect(joinCode('can I join?')).toBeUndefined();
    expect(joinCode('JOIN <code>')).toBeUndefined();
  });
});

describe('data commands', () => {
  it('recognises MY DATA and DELETE MY DATA in English and Hebrew, as whole messages', () => {
    for (const text of ['MY DATA', 'my data', ' My  data. ', 'הנתונים שלי', 'המידע שלי']) expect(detectDataCommand(text), text).toBe('my_data');
    for (const text of ['DELETE MY DATA', 'delete my data!', 'Erase my data', 'מחק את הנתונים שלי', 'מחקי את הנתונים שלי', 'תמחק את המידע שלי']) {
      expect(detectDataCommand(text), text).toBe('delete_my_data');
    }
    for (const text of ['delete my data from the shopping list', 'is my data safe?', 'data', 'הנתונים']) expect(detectDataCommand(text), text).toBeUndefined();
  });
});
