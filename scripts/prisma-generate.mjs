#!/usr/bin/env node
// Runs `prisma generate` so that it works offline. Generating the client does not need
// Prisma's schema engine, but the CLI looks for one and tries to download it; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file stops that. Where the variable is
// already set (or an engine is installed), it is left alone.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
env.CHECKPOINT_DISABLE = '1';

const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
