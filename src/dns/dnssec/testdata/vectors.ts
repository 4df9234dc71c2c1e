// Loads testdata/vectors.txt (ldns-signzone output in RFC 3597 form, see crypto.test.ts for how it was made).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { nameFromText } from "../names.ts";

/** The vectors' sections ("; algorithm 8" …), each as a wire message with every record in the answer section. */
export function loadVectors(): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const text = readFileSync(join(import.meta.dir, "vectors.txt"), "utf8");
  for (const part of text.split(/^; /m).filter(Boolean)) {
    const [title, ...lines] = part.split("\n");
    const rrs: number[][] = [];
    for (const line of lines) {
      const m = /^(\S+)\s+(\d+)\s+IN\s+TYPE(\d+)\s+\\# (\d+) ?([0-9a-f]*)/.exec(line);
      if (!m) continue;
      const owner = nameFromText(m[1]!)!;
      const type = Number(m[3]);
      const rdata = Buffer.from(m[5]!, "hex");
      const ttl = Number(m[2]);
      rrs.push([...owner, type >> 8, type & 255, 0, 1, ttl >>> 24, (ttl >> 16) & 255, (ttl >> 8) & 255, ttl & 255]);
      rrs.at(-1)!.push(rdata.length >> 8, rdata.length & 255, ...rdata);
    }
    const head = [0, 0, 0x84, 0, 0, 0, rrs.length >> 8, rrs.length & 255, 0, 0, 0, 0];
    out.set(title!.trim(), Uint8Array.from([...head, ...rrs.flat()]));
  }
  return out;
}
