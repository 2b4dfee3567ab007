import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);

/** One import in dist/ that the image could not satisfy. */
export interface ImportProblem {
  file: string;
  specifier: string;
  problem: string;
}

/**
 * Checks every import of every module under `root/dist` the way the image would meet it:
 * relative imports must name an existing `.js`/`.json` file (ES modules need the extension;
 * a `.ts` path means the build leaked source paths), and every package must be a Node
 * built-in or one of package.json's `dependencies` and resolve, with Node's own ESM resolver,
 * in the pruned node_modules. Dynamic `import('…')` with a literal counts too. Also checks that
 * every module carries its source map.
 */
export async function checkImportGraph(root: string): Promise<{ modules: number; packages: string[]; problems: ImportProblem[] }> {
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
  const builtins = new Set(builtinModules);
  const problems: ImportProblem[] = [];
  const packageSpecifiers = new Set<string>();
  const dist = path.join(root, 'dist');
  const files = (await readdir(dist, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath, entry.name));

  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const shown = path.relative(root, file);
    if (!/\n\/\/# sourceMappingURL=\S+\.js\.map\s*$/.test(text) || !existsSync(`${file}.map`)) {
      problems.push({ file: shown, specifier: '', problem: 'has no source map (tsconfig.json sourceMap)' });
    }
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        if (!/\.(js|json)$/.test(specifier)) {
          problems.push({ file: shown, specifier, problem: 'relative import without a .js extension (ES modules need it)' });
        } else if (!existsSync(path.resolve(path.dirname(file), specifier))) {
          problems.push({ file: shown, specifier, problem: 'names a file that is not in dist/' });
        }
        continue;
      }
      const bare = specifier.replace(/^node:/, '');
      if (specifier.startsWith('node:') || builtins.has(bare)) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      if (!dependencies.has(name)) {
        problems.push({ file: shown, specifier, problem: `package "${name}" is not in package.json's dependencies (a devDependency is not in the image)` });
        continue;
      }
      packageSpecifiers.add(specifier);
    }
  }

  // Node's ESM resolver (exports maps, conditions) from the image's root, where dist/'s imports
  // look for node_modules too; run in a child so nothing of this process's resolution leaks in.
  const probe = path.join(root, '.resolve-imports.mjs');
  await writeFile(
    probe,
    `const failed = [];\nfor (const specifier of JSON.parse(process.argv[2])) {\n  try { import.meta.resolve(specifier); } catch (error) { failed.push({ specifier, message: String(error.message).split('\\n')[0] }); }\n}\nprocess.stdout.write(JSON.stringify(failed));\n`,
  );
  try {
    const { stdout } = await run(process.execPath, [probe, JSON.stringify([...packageSpecifiers])], { cwd: root });
    for (const failure of JSON.parse(stdout) as Array<{ specifier: string; message: string }>) {
      problems.push({ file: '(node_modules)', specifier: failure.specifier, problem: `does not resolve in the pruned node_modules: ${failure.message}` });
    }
  } finally {
    await rm(probe, { force: true });
  }
  return { modules: files.length, packages: [...packageSpecifiers].sort(), problems };
}
