// Gravity build benchmark: 1M and 3M domains over several lists (hosts and plain formats, 20% of
// the domains repeated across lists), served from file:// so the figure is parse + build + swap
// from the download cache. Prints wall time and the child's peak RSS.
// Run: node_modules/.bin/bun bench/gravity/gravity.bench.ts [sizes…]   (default 1000000 3000000)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { openGravityDb } from "../../src/db/index.ts";

const ROOT = resolve(import.meta.dir, "../..");
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);

async function bench(total: number) {
  const dir = mkdtempSync(join(tmpdir(), "moat-bench-gravity-"));
  const db = openGravityDb(dir, true);
  const unique = Math.round(total / 1.2);
  const nLists = 4;
  const per = Math.ceil(unique / nLists);
  for (let l = 0; l < nLists; l++) {
    const lines: string[] = [];
    const hosts = l % 2 === 0;
    for (let i = l * per; i < Math.min(unique, (l + 1) * per); i++) lines.push(hosts ? `0.0.0.0 host${i}.bench${i % 977}.test` : `host${i}.bench${i % 977}.test`);
    // the 20% duplicates: domains of the next list repeated here
    const dupStart = ((l + 1) % nLists) * per;
    for (let i = 0; i < (total - unique) / nLists; i++) lines.push(`host${dupStart + i}.bench${(dupStart + i) % 977}.test`);
    const file = join(dir, `list${l}.txt`);
    writeFileSync(file, lines.join("\n"));
    db.query("INSERT INTO adlist (address, type) VALUES (?, 0)").run(`file://${file}`);
  }
  db.close();
  const t0 = performance.now();
  // /usr/bin/time gives the child's peak RSS
  const p = Bun.spawn(["/usr/bin/time", "-f", "%M", process.execPath, join(ROOT, "src/main.ts"), "gravity", "--data-dir", dir], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  const ms = performance.now() - t0;
  const rssKb = Number(err.trim().split("\n").pop());
  const check = new Database(join(dir, "gravity.db"), { readonly: true });
  const rows = (check.query("SELECT COUNT(*) AS n FROM gravity").get() as { n: number }).n;
  const uniq = (check.query("SELECT value FROM info WHERE property = 'gravity_count'").get() as { value: string }).value;
  check.close();
  console.log(`${total.toLocaleString()} domains (${uniq} unique, ${rows} rows, ${nLists} lists): exit ${code}, wall ${(ms / 1000).toFixed(2)} s, peak RSS ${(rssKb / 1024).toFixed(0)} MiB`);
  if (code !== 0) console.log(out, err);
  rmSync(dir, { recursive: true, force: true });
}

for (const n of sizes.length ? sizes : [1_000_000, 3_000_000]) await bench(n);
