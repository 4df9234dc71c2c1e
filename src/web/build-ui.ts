// Bundles the dashboard (ui/main.tsx) with Bun's bundler and prints the files as JSON on stdout.
// Run as its own process by bundle.ts: Bun.build cannot be called from inside a macro.
// Each language's catalogue (i18n/<tag>.json) becomes an asset of its own, named by its content's hash
// and listed in the page (`#moat-i18n`), so the browser fetches only the one it speaks, when it does.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const ui = join(import.meta.dir, "ui");
const result = await Bun.build({
  entrypoints: [join(ui, "main.tsx")],
  target: "browser",
  format: "esm",
  minify: true,
  sourcemap: "none",
  naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
  tsconfig: join(ui, "tsconfig.json"),
  define: { "process.env.NODE_ENV": '"production"' },
});
if (!result.success) {
  for (const log of result.logs) process.stderr.write(`${String(log)}\n`);
  process.exit(1);
}
const files: Array<{ name: string; text: string }> = [];
for (const out of result.outputs) files.push({ name: out.path.replace(/^.*\//, ""), text: await out.text() });
const script = files.find((f) => f.name.endsWith(".js"))!.name;
const styles = files.filter((f) => f.name.endsWith(".css")).map((f) => f.name);
const catalogues: Record<string, string> = {};
const i18n = join(import.meta.dir, "i18n");
for (const file of readdirSync(i18n).filter((f) => f.endsWith(".json"))) {
  const tag = file.slice(0, -".json".length);
  const text = JSON.stringify(await Bun.file(join(i18n, file)).json());
  const name = `i18n-${tag}-${Bun.hash(text).toString(36)}.json`;
  catalogues[tag] = name;
  files.push({ name, text });
}
const html = await Bun.file(join(ui, "index.html")).text();
const page = html
  .replace("<!--styles-->", styles.map((s) => `<link rel="stylesheet" href="/admin/assets/${s}">`).join(""))
  .replace("<!--languages-->", `<script type="application/json" id="moat-i18n">${JSON.stringify(catalogues)}</script>`)
  .replace("<!--script-->", `<script type="module" src="/admin/assets/${script}"></script>`);
files.push({ name: "index.html", text: page });
process.stdout.write(JSON.stringify(files));
