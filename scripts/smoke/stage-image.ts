import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The image's /app, laid out in a directory of its own. */
export interface StagedImage {
  /** The directory holding package.json, dist/, node_modules/ and prisma/migrations, as /app does. */
  readonly root: string;
  /** Bytes of dist/ and of the pruned node_modules/. */
  readonly sizes: { dist: number; nodeModules: number };
  remove(): Promise<void>;
}

/**
 * Lays out what the Dockerfile's runtime stage copies (package.json, dist/, prisma/migrations,
 * and node_modules after `npm prune --omit=dev`, as its build stage runs it) in a temporary
 * directory outside the checkout, so Node cannot fall back on the checkout's own node_modules
 * (with its devDependencies) when it resolves an import. node_modules is hard-linked where the
 * file system allows (fast, no extra space) and copied otherwise; pruning only unlinks.
 */
export async function stageImage(repository: string): Promise<StagedImage> {
  const parent = await mkdtemp(path.join(tmpdir(), 'herald-image-'));
  const root = path.join(parent, 'app');
  await mkdir(root);
  await cp(path.join(repository, 'package.json'), path.join(root, 'package.json'));
  await cp(path.join(repository, 'package-lock.json'), path.join(root, 'package-lock.json'));
  await cp(path.join(repository, 'dist'), path.join(root, 'dist'), { recursive: true });
  await mkdir(path.join(root, 'prisma'));
  await cp(path.join(repository, 'prisma', 'migrations'), path.join(root, 'prisma', 'migrations'), { recursive: true });
  try {
    await run('cp', ['-al', path.join(repository, 'node_modules'), path.join(root, 'node_modules')]);
  } catch {
    await cp(path.join(repository, 'node_modules'), path.join(root, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  }
  // The Dockerfile's `npm prune --omit=dev`. It runs no install scripts, so the project's
  // postinstall (prisma generate, which needs the dev-only Prisma CLI) does not run either.
  await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: root, env: { ...process.env, NODE_ENV: 'production' } });
  // package-lock.json is not in the image; it was only needed to prune exactly.
  await rm(path.join(root, 'package-lock.json'));
  const sizes = { dist: await directorySize(path.join(root, 'dist')), nodeModules: await directorySize(path.join(root, 'node_modules')) };
  return { root, sizes, remove: () => rm(parent, { recursive: true, force: true }) };
}

/** Total size in bytes of the regular files under `directory` (symbolic links not followed). */
async function directorySize(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
