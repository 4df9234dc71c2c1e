// Checks the layering that src/*/README.md describes, so it cannot drift silently:
//  1. no import cycle between files (type imports included: a cycle is a cycle to a reader);
//  2. no value-import cycle between folders (src/<folder>/...; `import type` does not tie folders);
//  3. every SQL statement on a table lives in that table's owner (TABLE_OWNERS below);
//  4. every folder imports only the folders its README's "May import:" line names;
//  5. the filter's life cycle has one owner: only src/services.ts starts the FilterService, and nothing
//     outside src/filter/service.ts makes a FilterEngine (a list change goes api → lists → core → filter,
//     and DNS only reads the snapshot and hears its swaps: src/filter/README.md).
//  6. no database handle reaches the API (HANDLE_FREE below): it holds the owners' objects instead.
// Run: bun scripts/check-architecture.ts [--graph]   (exit 1 and one line per finding when broken)
import ts from "typescript";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { MANAGEMENT_TABLES } from "../src/lists/tables.ts";

const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");

/**
 * Each table of gravity.db and pihole-FTL.db, and the files or folders (relative to src/) that may name it
 * in SQL. Schemas (src/db/) create every table and are allowed everywhere.
 */
/** A key ending in `*` covers every table whose name starts with what comes before it. */
export const TABLE_OWNERS: Record<string, string[]> = {
  // the management tables, as src/lists/tables.ts declares them: src/lists/ owns them; the gravity run
  // (filter/gravity) and the snapshot build read the lists it needs through src/lists/ too, except the bulk
  // tables it fills itself
  ...Object.fromEntries(MANAGEMENT_TABLES.map((t) => [t, ["lists/"]])),
  // what a gravity run fills (src/filter/gravity/tables.ts); src/lists/ deletes a list's rows with the list
  // in the same transaction (gravity.db has no cascade for them), which is the one write it makes there
  gravity: ["filter/gravity/", "lists/"],
  antigravity: ["filter/gravity/", "lists/"],
  info: ["filter/gravity/"],
  // the AdGuard-syntax rules a run found in each list; src/lists/ deletes a list's rows with the list
  moat_list_rule: ["filter/gravity/", "lists/"],
  // a run's fresh tables (src/db/gravity-schema.ts GRAVITY_BUILD_TABLES), renamed over the two above at
  // its swap; src/lists/ deletes a removed list's rows from them as from the live ones
  gravity_build: ["filter/gravity/", "lists/"],
  antigravity_build: ["filter/gravity/", "lists/"],
  // pihole-FTL.db
  message: ["messages/"],
  session: ["auth/"],
  queries: ["querylog/"],
  // src/longterm/ reads them too: each of its answers is one statement over its rollups and the raw rows
  // at the range's edges, and its rollups are filled by INSERT … SELECT inside SQLite (rollup.ts);
  // through functions of src/querylog/ every row would cross into JavaScript and back
  query_storage: ["querylog/", "longterm/"],
  domain_by_id: ["querylog/", "longterm/"],
  client_by_id: ["querylog/", "longterm/"],
  forward_by_id: ["querylog/", "longterm/"],
  addinfo_by_id: ["querylog/"],
  // each query's answer records, beside query_storage (src/db/migrations.ts)
  moat_answer_text: ["querylog/"],
  moat_query_answer: ["querylog/"],
  ftl: ["querylog/"],
  counters: ["querylog/"],
  network: ["network/"],
  network_addresses: ["network/"],
  aliasclient: ["network/"],
  // Moat's own long-term statistics in pihole-FTL.db (src/longterm/rollup.ts)
  "moat_rollup_*": ["longterm/"],
  // the fleet's shared history in PostgreSQL
  moat_queries: ["fleet/"],
};

/**
 * Folders that own no table and hold the owners' objects (src/api/deps.ts), never a database handle:
 * no import of bun:sqlite, and no property named after a handle of the Runtime (src/core/runtime.ts).
 */
const HANDLE_FREE = ["api/"];

/** The Runtime's fields of type Database (`gravityDb`, `queryDb`): the names a handle travels under. */
function handleNames(): Set<string> {
  const file = join(SRC, "core/runtime.ts");
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ESNext, true);
  const names = new Set<string>();
  sf.forEachChild((n) => {
    if (!ts.isInterfaceDeclaration(n) || n.name.text !== "Runtime") return;
    for (const m of n.members)
      if (ts.isPropertySignature(m) && m.type?.getText(sf) === "Database") names.add(m.name.getText(sf));
  });
  return names;
}

function handleProblems(files: string[], texts: Map<string, string>): string[] {
  const handles = handleNames();
  const problems: string[] = [];
  for (const f of files) {
    const rel = relative(SRC, f);
    if (!HANDLE_FREE.some((o) => rel.startsWith(o))) continue;
    const sf = ts.createSourceFile(f, texts.get(f)!, ts.ScriptTarget.ESNext, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isImportDeclaration(node) &&
        ts.isStringLiteral(node.moduleSpecifier) &&
        node.moduleSpecifier.text === "bun:sqlite"
      )
        problems.push(`src/${rel} imports bun:sqlite; the API reads through the owners' objects (src/api/deps.ts)`);
      // `rt.paths.queryDb` is the file's path, not a handle
      if (
        ts.isPropertyAccessExpression(node) &&
        handles.has(node.name.text) &&
        !(ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "paths")
      ) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
        problems.push(
          `src/${rel}:${line + 1} uses the database handle ${node.name.text}; use its owner's object (src/api/deps.ts)`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return problems;
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    try {
      if (statSync(p).isFile()) return p;
    } catch {}
  }
  return null;
}

function edgesOf(file: string, text: string): Edge[] {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ESNext,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const to = resolveImport(file, spec);
    if (to) edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      let typeOnly = !!c?.isTypeOnly;
      if (c && !typeOnly && !c.name && c.namedBindings && ts.isNamedImports(c.namedBindings)) {
        typeOnly = c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly);
      }
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let typeOnly = node.isTypeOnly;
      if (!typeOnly && node.exportClause && ts.isNamedExports(node.exportClause)) {
        typeOnly = node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly);
      }
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const a = node.arguments[0];
      if (a && ts.isStringLiteral(a)) add(a.text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(nodes: string[], next: (n: string) => string[]): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  return out;
}

/**
 * Folders inside a top folder that keep a "May import:" line of their own (checked like a top folder).
 * Cycles are still counted between top folders: a nested folder may import its parent's files.
 */
const NESTED = ["dns/dnssec"];

/** The unit whose README rules a file's imports: a NESTED folder, else its top folder. */
function unitOf(file: string): string {
  const rel = relative(SRC, file);
  return NESTED.find((n) => rel.startsWith(`${n}/`)) ?? folderOf(file);
}

/** The folder a file belongs to for layering: src/<top>/, and src/web/ui as its own (browser) part. */
function folderOf(file: string): string {
  const rel = relative(SRC, file);
  const parts = rel.split("/");
  // src/ itself (main.ts, services.ts) and files outside it (package.json) belong to no folder
  if (parts.length === 1 || rel.startsWith("..")) return "(root)";
  return parts[0]!;
}

// SQL keywords are written in capitals throughout src/, which keeps English text ("update failed") out
const SQL =
  /\b(?:SELECT\b[^;]*?\bFROM|INSERT\s+(?:OR\s+[A-Z]+\s+)?INTO|UPDATE(?=\s+["`]?\w+["`]?(?:\.\w+)?\s+SET\b)|DELETE\s+FROM|REPLACE\s+INTO|JOIN|CREATE\s+(?:TEMP\s+)?(?:TABLE|VIEW|TRIGGER)(?:\s+IF\s+NOT\s+EXISTS)?|CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+ON|DROP\s+(?:TABLE|VIEW)(?:\s+IF\s+EXISTS)?|ALTER\s+TABLE)\s+["`]?(\w+)["`]?/g;

/** Names after FROM/INTO/JOIN that are not tables of ours: SQLite's own, table-valued functions, attached schemas. */
const NOT_TABLES = new Set([
  "sqlite_master",
  "sqlite_schema",
  "sqlite_sequence",
  "json_each",
  "json_tree",
  "pragma_table_info",
  "main",
  "temp",
  "teleporter",
  "select",
  "values",
  "json_array_elements",
  "unnest",
  "generate_series",
]);
/** A placeholder for `${…}` in a template: a table named by an expression. */
const DYNAMIC = "__dynamic__";

/** The tables the SQL in a file's string literals names; DYNAMIC when a table name is computed. */
function tablesIn(file: string, text: string): Set<string> {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ESNext,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found = new Set<string>();
  const scan = (s: string) => {
    for (const m of s.matchAll(SQL)) {
      // `main.gravity` / `teleporter.adlist`: the table is the part after the schema
      const after = s.slice(m.index! + m[0].length);
      let t = m[1]!.toLowerCase();
      const dotted = /^\.["`]?(\w+)/.exec(after);
      if (dotted) t = dotted[1]!.toLowerCase();
      if (t === DYNAMIC || (dotted && dotted[1] === DYNAMIC)) found.add(DYNAMIC);
      else if (!NOT_TABLES.has(t)) found.add(t);
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) scan(node.text);
    else if (ts.isTemplateExpression(node))
      scan([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(DYNAMIC));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/**
 * The top folders each folder's README allows: the `src/<name>/` mentions in its "May import:" paragraph,
 * up to the first sentence that forbids ("Not `src/…`", "never `src/…`"). Null when the README has no such line.
 */
function allowedImports(folder: string): Set<string> | null {
  let text: string;
  try {
    text = readFileSync(join(SRC, folder, "README.md"), "utf8");
  } catch {
    return null;
  }
  const at = text.indexOf("May import:");
  if (at < 0) return null;
  let para = text.slice(at).split(/\n\s*\n/)[0]!;
  const stop = para.search(/\b(?:Not|not|never|Never) `src\//);
  if (stop >= 0) para = para.slice(0, stop);
  // `src/dns/dnssec/` names the nested unit; `src/filter/gravity/` and the like name their top folder
  return new Set(
    [...para.matchAll(/`src\/([a-z-]+(?:\/[a-z-]+)*)\//g)].map(
      (m) => NESTED.find((n) => m[1] === n || m[1]!.startsWith(`${n}/`)) ?? m[1]!.split("/")[0]!,
    ),
  );
}

function readmeProblems(edges: Edge[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const e of edges) {
    const a = unitOf(e.from);
    const b = unitOf(e.to);
    if (a === b || a === "(root)" || b === "(root)" || seen.has(`${a}>${b}`)) continue;
    seen.add(`${a}>${b}`);
    const allowed = allowedImports(a);
    if (allowed === null) out.push(`src/${a}/README.md has no "May import:" line`);
    else if (!allowed.has(b))
      out.push(
        `src/${a} imports src/${b} (${relative(ROOT, e.from)}), which src/${a}/README.md's "May import:" does not name`,
      );
  }
  return out;
}

/** Rule 5: the owner of the filter's life cycle (src/filter/service.ts), started by src/services.ts alone. */
function lifecycleProblems(edges: Edge[], texts: Map<string, string>): string[] {
  const out: string[] = [];
  const service = join(SRC, "filter/service.ts");
  for (const e of edges) {
    if (e.to === service && !e.typeOnly && e.from !== join(SRC, "services.ts"))
      out.push(
        `${relative(ROOT, e.from)} imports the FilterService: only src/services.ts starts it (a type import suffices)`,
      );
  }
  for (const [f, text] of texts) {
    if (f !== service && /\bnew FilterEngine\b/.test(text))
      out.push(`${relative(ROOT, f)} makes a FilterEngine: the filter's life cycle is src/filter/service.ts's`);
  }
  return out;
}

function main(): number {
  const files = walk(SRC);
  const texts = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
  const edges = files.flatMap((f) => edgesOf(f, texts.get(f)!));
  const problems: string[] = [];

  const byFile = new Map<string, string[]>();
  for (const e of edges) (byFile.get(e.from) ?? byFile.set(e.from, []).get(e.from)!).push(e.to);
  for (const c of cycles(files, (f) => byFile.get(f) ?? [])) {
    problems.push(`file cycle: ${c.map((f) => relative(ROOT, f)).join(" ↔ ")}`);
  }

  const folderEdges = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const e of edges) {
    if (e.typeOnly) continue;
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b || a === "(root)" || b === "(root)") continue;
    (folderEdges.get(a) ?? folderEdges.set(a, new Set()).get(a)!).add(b);
    if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, `${relative(ROOT, e.from)} → ${relative(ROOT, e.to)}`);
  }
  const folders = [...new Set(files.map(folderOf))];
  for (const c of cycles(folders, (f) => [...(folderEdges.get(f) ?? [])])) {
    const inside = [...why.entries()]
      .filter(([k]) => {
        const [a, b] = k.split(">");
        return c.includes(a!) && c.includes(b!);
      })
      .map(([, v]) => v);
    problems.push(`folder value cycle: ${c.join(" ↔ ")} (${inside.join("; ")})`);
  }
  if (process.argv.includes("--graph")) {
    for (const [a, bs] of [...folderEdges].sort()) console.log(`${a} → ${[...bs].sort().join(", ")}`);
  }

  const ownerFolders = [...new Set(Object.values(TABLE_OWNERS).flat())];
  for (const f of files) {
    const rel = relative(SRC, f);
    if (rel.startsWith("db/")) continue;
    for (const t of tablesIn(f, texts.get(f)!)) {
      if (t.includes(DYNAMIC) && t !== DYNAMIC) {
        // `moat_rollup_${kind}`: the owner of the prefix's tables
        const prefix = t.slice(0, t.indexOf(DYNAMIC));
        const key = Object.keys(TABLE_OWNERS).find((k) => k.endsWith("*") && prefix.startsWith(k.slice(0, -1)));
        if (key && TABLE_OWNERS[key]!.some((o) => rel.startsWith(o))) continue;
        problems.push(
          `SQL on table ${t.replace(DYNAMIC, "<computed>")} in src/${rel}, whose owner is unknown or elsewhere`,
        );
        continue;
      }
      if (t === DYNAMIC) {
        if (!ownerFolders.some((o) => rel.startsWith(o)))
          problems.push(`SQL with a computed table name in src/${rel}, which owns no table`);
        continue;
      }
      const owners =
        TABLE_OWNERS[t] ??
        Object.entries(TABLE_OWNERS).find(([k]) => k.endsWith("*") && t.startsWith(k.slice(0, -1)))?.[1];
      if (!owners) {
        problems.push(`SQL on table ${t} in src/${rel}, a table with no owner in scripts/check-architecture.ts`);
        continue;
      }
      if (!owners.some((o) => (o.endsWith("/") ? rel.startsWith(o) : rel === o))) {
        problems.push(`SQL on table ${t} in src/${rel}; its owner is ${owners.map((o) => `src/${o}`).join(" or ")}`);
      }
    }
  }

  problems.push(...readmeProblems(edges));
  problems.push(...lifecycleProblems(edges, texts));
  problems.push(...handleProblems(files, texts));

  for (const p of problems) console.log(p);
  console.log(
    problems.length
      ? `architecture: ${problems.length} problem(s)`
      : "architecture: no import cycles, SQL only in each table's owner, no database handle in the API",
  );
  return problems.length ? 1 : 0;
}

if (import.meta.main) process.exit(main());
