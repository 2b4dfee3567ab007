import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The map in docs/ARCHITECTURE.md, held to the code: imports run one way down the layers
 * its table names, no folder cycle within a layer, no file cycle anywhere, and every folder
 * of src/ has a place on the map.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const src = path.join(root, 'src');
const map = readFileSync(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8');

/** Folder → layer, from the "Layers" table (a folder is written `name`; `(root)` is src/ itself). */
function layers(): Map<string, number> {
  const section = map.slice(map.indexOf('## Layers'), map.indexOf('\n## ', map.indexOf('## Layers') + 1));
  const byFolder = new Map<string, number>();
  for (const row of section.split('\n')) {
    const cells = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(row);
    if (!cells) continue;
    for (const [, folder] of cells[2]!.matchAll(/`([^`]+)`/g)) byFolder.set(folder!, Number(cells[1]));
  }
  return byFolder;
}

interface Edge {
  from: string;
  to: string;
}

/** Every relative import (static, type-only and dynamic with a literal) between files of src/. */
function imports(): Edge[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'generated') walk(full);
      } else if (entry.name.endsWith('.ts')) files.push(full);
    }
  };
  walk(src);
  const edges: Edge[] = [];
  for (const file of files) {
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts');
      edges.push({ from: path.relative(src, file), to: path.relative(src, target) });
    }
  }
  return edges;
}

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : '(root)');

/** The cycles of a directed graph (Tarjan's strongly connected components of more than one node). */
function cycles(edges: Array<[string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the layers of docs/ARCHITECTURE.md', () => {
  const layerOf = layers();
  const edges = imports().filter((edge) => !edge.to.startsWith('generated/'));

  it('names every folder of src/ exactly once', () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !layerOf.has(folder)), 'folders missing from the Layers table').toEqual([]);
    expect([...layerOf.keys()].filter((folder) => folder !== '(root)' && !folders.includes(folder)), 'folders in the table that do not exist').toEqual([]);
    expect(layerOf.has('(root)')).toBe(true);
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward = edges
      .filter((edge) => (layerOf.get(folderOf(edge.from)) ?? -1) < (layerOf.get(folderOf(edge.to)) ?? -1))
      .map((edge) => `${edge.from} (layer ${layerOf.get(folderOf(edge.from))}) imports ${edge.to} (layer ${layerOf.get(folderOf(edge.to))})`);
    expect(upward).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const folderEdges = edges.map((edge) => [folderOf(edge.from), folderOf(edge.to)] as [string, string]).filter(([from, to]) => from !== to);
    expect(cycles(folderEdges)).toEqual([]);
  });

  it('has no cycle between files', () => {
    expect(cycles(edges.map((edge) => [edge.from, edge.to]))).toEqual([]);
  });

  it('links only READMEs that exist, and every folder README', () => {
    const linked = [...map.matchAll(/\]\(\.\.\/(src\/[^)]+\/README\.md)\)/g)].map((match) => match[1]!);
    expect(linked.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
    const readmes = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(src, entry.name, 'README.md')))
      .map((entry) => `src/${entry.name}/README.md`);
    expect(readmes.filter((file) => !linked.includes(file))).toEqual([]);
  });
});
