// Writes the OCI image layout of the container image (image-spec v1.1: image-layout.md, image-index.md,
// manifest.md, config.md) from one gzipped layer per architecture:
//   bun scripts/image-lib/oci-layout.ts DIR VERSION ARCH=LAYER.tar.gz=DIFF_ID ...
// index.json holds one entry, a nested index listing the per-architecture manifests: `podman load` of a
// multi-architecture archive takes that shape (as `buildah manifest push --all oci-archive:` writes it)
// and refuses a top index that lists the manifests itself ("more than one image").
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, statSync } from "node:fs";
import { join } from "node:path";

const [dir, version, ...layers] = process.argv.slice(2);
if (!dir || !version || layers.length === 0) {
  console.error("usage: oci-layout.ts DIR VERSION ARCH=LAYER.tar.gz=DIFF_ID ...");
  process.exit(2);
}

const blobs = join(dir, "blobs", "sha256");
mkdirSync(blobs, { recursive: true });

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string; variant?: string };
  annotations?: Record<string, string>;
}

function blob(mediaType: string, data: Uint8Array | string): Descriptor {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const hex = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  writeFileSync(join(blobs, hex), bytes);
  return { mediaType, digest: `sha256:${hex}`, size: bytes.length };
}

function fileBlob(mediaType: string, path: string): Descriptor {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(readFileSync(path));
  const hex = hasher.digest("hex");
  copyFileSync(path, join(blobs, hex));
  return { mediaType, digest: `sha256:${hex}`, size: statSync(path).size };
}

const created = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 0) * 1000).toISOString();
const labels = {
  "org.opencontainers.image.title": "Moat",
  "org.opencontainers.image.description": "DNS filter with a Pi-hole v6 compatible API and dashboard",
  "org.opencontainers.image.version": version,
  "org.opencontainers.image.licenses": "MIT",
};
const SECOND = 1_000_000_000; // Docker's healthcheck durations are nanoseconds

const manifests: Descriptor[] = [];
for (const spec of layers) {
  const [arch, path, diffId] = spec.split("=");
  if (!arch || !path || !diffId) throw new Error(`bad layer argument ${spec}`);
  const layer = fileBlob("application/vnd.oci.image.layer.v1.tar+gzip", path);
  const config = {
    created,
    architecture: arch,
    os: "linux",
    ...(arch === "arm64" ? { variant: "v8" } : {}),
    config: {
      User: "1000:1000",
      Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
      Entrypoint: ["/usr/bin/moat"],
      Cmd: ["serve", "--data-dir", "/etc/pihole", "--defaults", "/usr/share/moat/pihole.toml"],
      WorkingDir: "/etc/pihole",
      ExposedPorts: Object.fromEntries(
        ["53/tcp", "53/udp", "67/udp", "80/tcp", "123/udp", "443/tcp", "853/tcp"].map((p) => [p, {}]),
      ),
      Volumes: { "/etc/pihole": {} },
      StopSignal: "SIGTERM",
      Labels: labels,
      // Docker reads this from the image; podman does not (README: --health-cmd there)
      Healthcheck: {
        Test: ["CMD", "/usr/bin/moat", "healthcheck"],
        Interval: 30 * SECOND,
        Timeout: 10 * SECOND,
        StartPeriod: 60 * SECOND,
        StartInterval: 2 * SECOND,
        Retries: 3,
      },
    },
    rootfs: { type: "layers", diff_ids: [diffId.startsWith("sha256:") ? diffId : `sha256:${diffId}`] },
    history: [{ created, created_by: "scripts/build-container.sh", comment: `Moat ${version}` }],
  };
  const configDesc = blob("application/vnd.oci.image.config.v1+json", JSON.stringify(config));
  const manifest = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: configDesc,
    layers: [layer],
    annotations: { "org.opencontainers.image.created": created, ...labels },
  };
  manifests.push({
    ...blob("application/vnd.oci.image.manifest.v1+json", JSON.stringify(manifest)),
    platform: { architecture: arch, os: "linux", ...(arch === "arm64" ? { variant: "v8" } : {}) },
  });
}

const nested = blob(
  "application/vnd.oci.image.index.v1+json",
  JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests }),
);
const name = `moat:${version}`;
const index = {
  schemaVersion: 2,
  mediaType: "application/vnd.oci.image.index.v1+json",
  manifests: [
    {
      ...nested,
      annotations: {
        // podman names the loaded image from the first, Docker (containerd store) from the second
        "org.opencontainers.image.ref.name": name,
        "io.containerd.image.name": `docker.io/library/${name}`,
      },
    },
  ],
};
writeFileSync(join(dir, "index.json"), JSON.stringify(index));
writeFileSync(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
