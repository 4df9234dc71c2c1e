// Prometheus text exposition format (version 0.0.4): a tiny writer so every metric carries its
// HELP and TYPE lines and label values are escaped one way.

type Labels = Record<string, string>;

function esc(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}
function fmt(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}
function labelText(l: Labels | undefined): string {
  if (!l) return "";
  const parts = Object.entries(l).map(([k, v]) => `${k}="${esc(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

export class Exposition {
  private out: string[] = [];

  metric(
    name: string,
    type: "counter" | "gauge",
    help: string,
    samples: Array<[Labels | undefined, number]> | number,
  ): this {
    this.out.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`);
    const list = typeof samples === "number" ? [[undefined, samples] as [Labels | undefined, number]] : samples;
    for (const [l, v] of list) this.out.push(`${name}${labelText(l)} ${fmt(v)}`);
    return this;
  }

  /** A histogram from cumulative bucket counts (one per upper bound), their sum and count. */
  histogram(name: string, help: string, bounds: number[], cumulative: number[], sum: number, count: number): this {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
    bounds.forEach((b, i) => this.out.push(`${name}_bucket{le="${fmt(b)}"} ${cumulative[i] ?? 0}`));
    this.out.push(`${name}_bucket{le="+Inf"} ${count}`, `${name}_sum ${fmt(sum)}`, `${name}_count ${count}`);
    return this;
  }

  text(): string {
    return `${this.out.join("\n")}\n`;
  }
}
