// A small parser of the Prometheus text exposition format (0.0.4), strict enough to catch
// malformed output: every sample belongs to a declared family and has a numeric value.

export interface Family {
  type: string;
  help: string;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

export function parseProm(text: string): Map<string, Family> {
  const fams = new Map<string, Family>();
  if (!text.endsWith("\n")) throw new Error("exposition must end with a newline");
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) {
      const [, name, ...help] = line.split(" ").slice(1);
      void name;
      const n = line.split(" ")[2]!;
      fams.set(n, { type: "untyped", help: help.join(" "), samples: fams.get(n)?.samples ?? [] });
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [, , n, type] = line.split(" ");
      if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(type!))
        throw new Error(`bad type: ${line}`);
      const f = fams.get(n!) ?? { type: type!, help: "", samples: [] };
      f.type = type!;
      fams.set(n!, f);
      continue;
    }
    if (line.startsWith("#") || line === "") continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`malformed sample: ${line}`);
    const labels: Record<string, string> = {};
    if (m[3]) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < m[3].length) {
        const l = LABEL.exec(m[3]);
        if (!l) throw new Error(`malformed labels: ${line}`);
        labels[l[1]!] = l[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
      }
    }
    const value = m[4] === "+Inf" ? Infinity : m[4] === "-Inf" ? -Infinity : Number(m[4]);
    if (Number.isNaN(value) && m[4] !== "NaN") throw new Error(`bad value: ${line}`);
    const family = [...fams.keys()].find(
      (f) => m[1] === f || (fams.get(f)!.type === "histogram" && /^(.*)_(bucket|sum|count)$/.exec(m[1]!)?.[1] === f),
    );
    if (!family) throw new Error(`sample without TYPE: ${line}`);
    fams.get(family)!.samples.push({ name: m[1]!, labels, value });
  }
  return fams;
}
