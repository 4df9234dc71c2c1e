// The dashboard's files in memory, each with its gzip form and an ETag, made once on first use.
export interface Asset {
  body: Uint8Array;
  gzip: Uint8Array;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  json: "application/json",
};

let loaded: Promise<Map<string, Asset>> | undefined;

/** name ("index.html", "main-1a2b.js", …) → asset */
export function dashboardAssets(): Promise<Map<string, Asset>> {
  loaded ??= import("./bundled.ts").then(({ files }) => {
    const map = new Map<string, Asset>();
    for (const f of files) {
      const body = new TextEncoder().encode(f.text);
      const ext = f.name.slice(f.name.lastIndexOf(".") + 1);
      map.set(f.name, {
        body,
        gzip: Bun.gzipSync(body, { level: 9 }),
        type: TYPES[ext] ?? "application/octet-stream",
        etag: `"${Bun.hash(body).toString(36)}"`,
      });
    }
    return map;
  });
  return loaded;
}
