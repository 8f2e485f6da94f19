/**
 * ESLint rule `baton/no-import-cycle`: no file may reach itself through its relative imports
 * (`import`, `import type`, `export … from`, `import()` alike: a type-only circle still ties the
 * two files together for a reader). Each file's imports are read once per lint run with
 * TypeScript's import scanner (no type checking), the strongly connected components are found
 * with Tarjan's algorithm as files are linted, and a file in a circle is reported at the import
 * that leads back to it, with the whole circle spelled out.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const EXTENSIONS = ['', '.ts', '.tsx', '.js', '/index.ts', '/index.tsx', '/index.js'];

/** The file a relative specifier names, or null (a package, or nothing there). */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = resolve(dirname(from), specifier);
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every file `file` imports (relative imports only), read from `text` or from disk. */
function importsOf(file, text) {
  const source = text ?? readFileSync(file, 'utf8');
  const { importedFiles } = ts.preProcessFile(source, true, true);
  const targets = new Set();
  for (const { fileName } of importedFiles) {
    const target = resolveImport(file, fileName);
    if (target !== null) targets.add(target);
  }
  return [...targets];
}

/** The import graph of one lint run, its components found as files are asked about. */
class ImportGraph {
  edges = new Map();
  /** Each file's strongly connected component (files that reach each other), once found. */
  component = new Map();
  index = new Map();
  low = new Map();
  stack = [];
  onStack = new Set();
  counter = 0;

  targets(file) {
    let found = this.edges.get(file);
    if (found === undefined) {
      try {
        found = importsOf(file);
      } catch {
        found = [];
      }
      this.edges.set(file, found);
    }
    return found;
  }

  /** The files of `file`'s component (a circle when more than one, or when it imports itself). */
  componentOf(file) {
    if (!this.component.has(file)) this.connect(file);
    return this.component.get(file);
  }

  // Tarjan's algorithm, iterative (deep import chains would overflow a recursive one).
  connect(root) {
    const work = [{ file: root, next: 0 }];
    this.visit(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = this.targets(frame.file);
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (this.component.has(target)) continue;
        if (!this.index.has(target)) {
          this.visit(target);
          work.push({ file: target, next: 0 });
        } else if (this.onStack.has(target)) {
          this.low.set(frame.file, Math.min(this.low.get(frame.file), this.index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].file;
        this.low.set(parent, Math.min(this.low.get(parent), this.low.get(frame.file)));
      }
      if (this.low.get(frame.file) === this.index.get(frame.file)) {
        const members = new Set();
        let member;
        do {
          member = this.stack.pop();
          this.onStack.delete(member);
          members.add(member);
        } while (member !== frame.file);
        for (const m of members) this.component.set(m, members);
      }
    }
  }

  visit(file) {
    this.index.set(file, this.counter);
    this.low.set(file, this.counter);
    this.counter += 1;
    this.stack.push(file);
    this.onStack.add(file);
  }

  /** The shortest circle from `file` back to itself, as the files in order (first and last `file`), or null. */
  circleThrough(file) {
    const members = this.componentOf(file);
    const selfImport = this.targets(file).includes(file);
    if (members.size === 1 && !selfImport) return null;
    if (selfImport) return [file, file];
    const cameFrom = new Map([[file, null]]);
    const queue = [file];
    while (queue.length > 0) {
      const at = queue.shift();
      for (const target of this.targets(at)) {
        if (!members.has(target)) continue;
        if (target === file) {
          const path = [file];
          for (let step = at; step !== null; step = cameFrom.get(step)) path.unshift(step);
          return path;
        }
        if (!cameFrom.has(target)) {
          cameFrom.set(target, at);
          queue.push(target);
        }
      }
    }
    return null;
  }
}

let graph = new ImportGraph();

/**
 * The graph of this lint run. A long-running ESLint (an editor's) lints a file as it is being
 * edited: when its imports differ from what the graph read, the graph is read afresh.
 */
function graphFor(file, text) {
  const known = graph.edges.get(file);
  const now = importsOf(file, text);
  if (known !== undefined && (known.length !== now.length || known.some((f, i) => f !== now[i]))) graph = new ImportGraph();
  graph.edges.set(file, now);
  return graph;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid a file from reaching itself through its relative imports (type-only imports included).' },
    schema: [],
    messages: { cycle: 'Import circle: {{circle}}. Move what both sides need into a file below them.' },
  },
  create(context) {
    const file = resolve(context.filename);
    const circle = graphFor(file, context.sourceCode.text).circleThrough(file);
    if (circle === null) return {};
    const next = circle[1];
    const root = context.cwd ?? process.cwd();
    const names = circle.map((f) => relative(root, f)).join(' → ');
    let reported = false;
    const check = (node) => {
      const specifier = node.source?.value;
      if (reported || typeof specifier !== 'string' || resolveImport(file, specifier) !== next) return;
      reported = true;
      context.report({ node, messageId: 'cycle', data: { circle: names } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      'Program:exit'(program) {
        if (!reported) context.report({ node: program, messageId: 'cycle', data: { circle: names } });
      },
    };
  },
};

/** The plugin eslint.config.js installs as `baton`. */
export default { rules: { 'no-import-cycle': rule } };
