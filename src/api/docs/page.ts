// The /api/docs page: the OpenAPI document (openapi.ts) written out as one HTML page on the server,
// so it needs no script, no internet and no viewer package. Every curl example carries the
// absolute URL the page was requested from.
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON whose objects nest arbitrarily
type Json = Record<string, any>;

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A schema as a short type expression, objects spread over lines with their members' descriptions. */
function typeText(schema: Json | undefined, indent = ""): string {
  if (!schema || Object.keys(schema).length === 0) return "any";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return (schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  if (schema.anyOf) return (schema.anyOf as Json[]).map((s) => typeText(s, indent)).join(" | ");
  if (schema.type === "array") return `${typeText(schema.items, indent)}[]`;
  if (schema.type === "object" || schema.properties || schema.patternProperties) {
    const props = Object.entries((schema.properties ?? {}) as Record<string, Json>);
    const pattern = Object.values((schema.patternProperties ?? {}) as Record<string, Json>)[0];
    if (!props.length) return pattern ? `{ [key: string]: ${typeText(pattern, indent)} }` : "object";
    const inner = `${indent}  `;
    const required = new Set((schema.required as string[]) ?? []);
    const lines = props.map(([k, v]) => {
      const note = v.description ? `  // ${v.description}` : "";
      return `${inner}${k}${required.has(k) ? "" : "?"}: ${typeText(v, inner)}${note}`;
    });
    return `{\n${lines.join("\n")}\n${indent}}`;
  }
  const t = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any");
  return schema.format && schema.format !== "binary"
    ? `${t} (${schema.format})`
    : schema.format === "binary"
      ? "file"
      : `${t}${limits(schema)}`;
}

/** A schema's limits in words: " (at most 255 characters)", " (0 to 31536000)". */
function limits(schema: Json): string {
  if (typeof schema.maxLength === "number") return ` (at most ${schema.maxLength} characters)`;
  const lo = schema.minimum,
    hi = schema.maximum;
  if (typeof lo === "number" && typeof hi === "number") return ` (${lo} to ${hi})`;
  if (typeof hi === "number") return ` (at most ${hi})`;
  if (typeof lo === "number") return ` (at least ${lo})`;
  return "";
}

function curl(method: string, origin: string, docPath: string, op: Json, ex: Json | undefined): string {
  const parts = ["curl -s"];
  if (method !== "GET") parts.push(`-X ${method}`);
  let target = origin + (ex?.path ?? docPath);
  if (ex?.query) target += `?${new URLSearchParams(ex.query).toString()}`;
  parts.push(shellQuote(target));
  if (ex?.session ?? op.security === undefined) parts.push(`-H "X-FTL-SID: $SID"`);
  if (ex?.body !== undefined)
    parts.push(`-H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(ex.body))}`);
  return parts.join(" ");
}

function operationHtml(origin: string, path: string, method: string, op: Json): string {
  const M = method.toUpperCase();
  const examples = (op["x-moat-examples"] as Json[] | undefined) ?? [];
  const params = (op.parameters as Json[]) ?? [];
  const out: string[] = [];
  out.push(
    `<section class="op" id="${esc(op.operationId)}"><h3><span class="m ${method}">${M}</span> <code>${esc(path)}</code></h3>`,
  );
  out.push(`<p>${esc(op.summary ?? "")}${op.security ? ' <span class="pub">no session needed</span>' : ""}</p>`);
  if (op.description) out.push(`<p class="desc">${esc(op.description)}</p>`);
  if (params.length) {
    out.push("<table><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr>");
    for (const p of params)
      out.push(
        `<tr><td><code>${esc(p.name)}</code>${p.required ? "" : "?"}</td><td>${esc(p.in)}</td><td><code>${esc(typeText(p.schema))}</code></td><td>${esc(p.description ?? "")}</td></tr>`,
      );
    out.push("</table>");
  }
  const body = op.requestBody?.content as Json | undefined;
  if (body) {
    const [type, media] = Object.entries(body)[0]!;
    out.push(`<h4>Request body <small>${esc(type)}</small></h4><pre>${esc(typeText(media.schema))}</pre>`);
  }
  out.push("<h4>Responses</h4><dl>");
  for (const [code, r] of Object.entries(op.responses as Record<string, Json>)) {
    out.push(`<dt><b>${esc(code)}</b> ${esc(r.description)}</dt>`);
    const media = r.content ? (Object.values(r.content)[0] as Json) : undefined;
    if (media?.schema)
      out.push(`<dd><details><summary>reply</summary><pre>${esc(typeText(media.schema))}</pre></details></dd>`);
  }
  out.push("</dl>");
  out.push("<h4>Example</h4>");
  for (const ex of examples.length ? examples : [undefined]) {
    if (ex) out.push(`<p class="ex">${esc(ex.summary)} → <b>${esc(ex.status)}</b></p>`);
    out.push(`<pre>${esc(curl(M, origin, path, op, ex))}</pre>`);
    if (ex?.response !== undefined)
      out.push(`<pre class="reply">${esc(JSON.stringify({ ...ex.response, took: 0.003 }, null, 2))}</pre>`);
  }
  out.push("</section>");
  return out.join("\n");
}

export function docsPage(doc: Json, origin: string): string {
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>))
    for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
      const tag = ((op.tags as string[] | undefined) ?? ["Other"])[0]!;
      if (!byTag.has(tag)) byTag.set(tag, []), toc.set(tag, []);
      byTag.get(tag)!.push(operationHtml(origin, path, method, op));
      toc
        .get(tag)!
        .push(
          `<a href="#${esc(op.operationId)}"><span class="m ${method}">${method.toUpperCase()}</span> ${esc(path)}</a>`,
        );
    }
  const tags = [...byTag.keys()];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2125;background:#fff}
nav{position:fixed;top:0;bottom:0;left:0;width:19rem;overflow:auto;padding:1rem;background:#f4f5f7;border-right:1px solid #dde}
nav a{display:block;font-size:12px;color:inherit;text-decoration:none;padding:1px 0;white-space:nowrap}
nav h2{font-size:13px;margin:.8rem 0 .2rem}
main{margin-left:21rem;padding:1rem 2rem;max-width:60rem}
.op{border-top:1px solid #dde;padding-top:.5rem;margin-top:1.2rem}
.m{display:inline-block;min-width:3.6em;font:600 11px monospace;text-align:center;border-radius:3px;color:#fff;background:#667}
.m.get{background:#2a7}.m.post{background:#27c}.m.put{background:#c82}.m.patch{background:#a5c}.m.delete{background:#c33}
pre{background:#f4f5f7;padding:.6rem;overflow:auto;font-size:12.5px}
pre.reply{background:#eef7f1}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #dde;padding:2px 6px;text-align:left}
.pub{font-size:12px;background:#fe9;padding:0 4px;border-radius:3px}
dt{margin-top:.3rem}dd{margin-left:1rem}.desc{color:#444}.ex{margin-bottom:0}
@media (max-width:800px){nav{position:static;width:auto}main{margin:0;padding:1rem}}
</style></head><body>
<nav><b>${esc(doc.info.title)} ${esc(doc.info.version)}</b><br><a href="${esc(origin)}/api/docs/json">OpenAPI document (JSON)</a>
${tags.map((t) => `<h2>${esc(t)}</h2>${toc.get(t)!.join("\n")}`).join("\n")}</nav>
<main><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>
<pre>${esc(`SID=$(curl -s -X POST ${shellQuote(`${origin}/api/auth`)} -d '{"password":"…"}' | sed -E 's/.*"sid":"([^"]+)".*/\\1/')`)}</pre>
${tags.map((t) => `<h2>${esc(t)}</h2>\n${byTag.get(t)!.join("\n")}`).join("\n")}
</main></body></html>`;
}
