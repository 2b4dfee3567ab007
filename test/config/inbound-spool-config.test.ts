import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigurationError } from '../../src/shared/errors.js';

describe('INBOUND_SPOOL_*', () => {
  it('spools under DATA_DIR by default, up to 20,000 messages or 100 MB, after 5 s without an answer', () => {
    expect(loadConfig({}).inboundSpool).toEqual({ directory: '.data/spool', maxFiles: 20_000, maxBytes: 100 * 1024 * 1024, spoolAfterMs: 5_000 });
    expect(loadConfig({ DATA_DIR: '/var/lib/herald/' }).inboundSpool.directory).toBe('/var/lib/herald/spool');
  });

  it('takes a directory of its own, bounds of 0 (off) and no deadline', () => {
    const config = loadConfig({ INBOUND_SPOOL_DIR: '/spool', INBOUND_SPOOL_MAX_FILES: '0', INBOUND_SPOOL_MAX_BYTES: '1024', INBOUND_SPOOL_AFTER_MS: '0' });
    expect(config.inboundSpool).toEqual({ directory: '/spool', maxFiles: 0, maxBytes: 1024, spoolAfterMs: 0 });
  });

  it('refuses a bound that is not a whole number', () => {
    expect(() => loadConfig({ INBOUND_SPOOL_MAX_BYTES: '10MB' })).toThrow(ConfigurationError);
  });
});
