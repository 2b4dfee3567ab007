import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

const production = {
  NODE_ENV: 'production',
  TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
  TWILIO_AUTH_TOKEN: 'token',
  TWILIO_SMS_FROM: '+15005550006',
  ANTHROPIC_API_KEY: 'key',
  PUBLIC_BASE_URL: 'https://herald.example.com',
  HERALD_ENCRYPTION_KEY: 'a'.repeat(64),
};

describe('access and budget settings', () => {
  it('is open locally and invite in production unless ACCESS_MODE says otherwise', () => {
    expect(loadConfig({}).access).toEqual({ mode: 'open', ownerPhones: [], newUsersPerHour: 30 });
    expect(loadConfig(production).access.mode).toBe('invite');
    expect(loadConfig({ ...production, ACCESS_MODE: 'open' }).access.mode).toBe('open');
    expect(loadConfig({ ACCESS_MODE: 'invite' }).access.mode).toBe('invite');
  });

  it('reads OWNER_PHONES as E.164, tolerating spaces and dashes, without duplicates', () => {
    expect(loadConfig({ OWNER_PHONES: ' +1 212-555-0100 ,+972 50 123 4567,+12125550100, ' }).access.ownerPhones).toEqual(['+12125550100', '+972501234567']);
  });

  it('reads the budgets in dollars: 0.50 per user by default, no deployment limit unless set', () => {
    expect(loadConfig({}).budgets).toEqual({ userDailyUsd: 0.5, dailyUsd: undefined });
    expect(loadConfig({ USER_DAILY_BUDGET_USD: '2', DAILY_BUDGET_USD: '25.75' }).budgets).toEqual({ userDailyUsd: 2, dailyUsd: 25.75 });
  });

  it('lists every bad access or budget value at once, never echoing a phone number', () => {
    let message = '';
    try {
      loadConfig({ ACCESS_MODE: 'private', OWNER_PHONES: '+12125550100, 0501234567', USER_DAILY_BUDGET_USD: '$1', DAILY_BUDGET_USD: '-3', NEW_USERS_PER_HOUR: '0' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('ACCESS_MODE');
    expect(message).toContain('OWNER_PHONES: entry 2 is not a phone number in international form');
    expect(message).toContain('USER_DAILY_BUDGET_USD: must be an amount in US dollars such as 0.50');
    expect(message).toContain('DAILY_BUDGET_USD: must be an amount in US dollars');
    expect(message).toContain('NEW_USERS_PER_HOUR');
    expect(message).not.toContain('0501234567');
  });
});
