// PLACEHOLDER until the auth module lands (Balloon-SHA256). Legacy Pi-hole v5 double SHA-256.
import { createHash } from "node:crypto";

export function hashPassword(plain: string): string {
  const inner = createHash("sha256").update(plain).digest("hex");
  return createHash("sha256").update(inner).digest("hex");
}
